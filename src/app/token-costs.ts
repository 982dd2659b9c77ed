import type { ToolScope } from '../composition/tool-scope.js';
import type { TokenCounter } from '../foundation/ports/token-counter.js';
import { Exposure, type ExposureOptions } from '../surfaces/mcp/exposure.js';
import type { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import { METATOOLS } from '../surfaces/mcp/metatools.js';

/** What a session of the gateway serves besides the core metatools. */
export interface TokenCostParts {
  code: boolean;
  toolsets: boolean;
  skills: boolean;
  naming: FlatNaming;
  /** The configured exposure: pinned tools count on the metatools' side, as `auto` counts them. */
  exposure: Omit<ExposureOptions, 'mode' | 'counter'>;
  /** The tokenizer of `exposure.encoding`; absent: the character estimate. */
  counter: TokenCounter | undefined;
  encoding: string;
}

/** What `tools/list` costs an agent for one scope, flat against metatools (the console's token meter). */
export interface TokenCosts {
  /** Every visible tool's `tools/list` entry, flat. */
  flat: number;
  /** The metatools' entries plus a typical task's `search_tools` and `describe_tool` answers. */
  metatools: number;
  tools: number;
  /** The encoding counted with, or `estimate` (about four characters a token). */
  counter: string;
}

/**
 * The costs `exposure: auto` weighs, for `scope` as it is now, with the metatools a session of
 * this gateway would serve: the same computation (`Exposure.autoCosts`), so the console's meter and
 * the exposure decision cannot disagree.
 */
export function tokenCosts(scope: ToolScope, parts: TokenCostParts): TokenCosts {
  const served = METATOOLS.filter((m) => m.requires === undefined || parts[m.requires]);
  const exposure = new Exposure(
    scope,
    served,
    { ...parts.exposure, mode: 'auto', ...(parts.counter ? { counter: parts.counter } : {}) },
    { naming: parts.naming },
  );
  return {
    ...exposure.autoCosts(),
    tools: scope.tools().length,
    counter: parts.counter ? parts.encoding : 'estimate',
  };
}
