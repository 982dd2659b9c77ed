import { createHash } from 'node:crypto';
import { flatToolName } from '../model/flat-name.js';
import { GatewayError } from '../model/gateway-error.js';
import type { Tool } from '../model/tool.js';

/**
 * A function name every provider accepts: OpenAI and Anthropic want `^[a-zA-Z0-9_-]{1,64}$`,
 * Gemini additionally wants the first character to be a letter or an underscore.
 */
export const PROVIDER_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;

const MAX = 64;
const FIRST_HASH_LENGTH = 8;

/** A reversible mapping between tool ids and provider function names, for one list of tools. */
export interface ProviderNameMap {
  /** The provider name of a tool of the list; throws `tool_not_found` for any other id. */
  toName(id: string): string;
  /** The id behind a provider name, or undefined when no tool of the list has that name. */
  toId(name: string): string | undefined;
}

/**
 * Names for a list of tools, valid for every provider. The default name is the flat name
 * (`namespace__name`, see `flatToolName`), made to start with a letter or `_`; tools whose names
 * still collide (two versions of one tool, `a__b:c` and `a:b__c`…) all get a short hash of their
 * id appended, so a name depends only on the set of tools, never on their order. Deterministic,
 * and reversible through `toId`.
 */
export function buildNameMap(tools: readonly Pick<Tool, 'id' | 'namespace' | 'name'>[]): ProviderNameMap {
  const base = new Map<string, string>();
  for (const tool of tools) if (!base.has(tool.id)) base.set(tool.id, defaultName(tool));
  const names = new Map(base);
  // Each round suffixes every member of a colliding group with a longer hash; a suffixed name can
  // only collide again with astronomically small odds, so this ends after one round in practice.
  for (let hashLength = FIRST_HASH_LENGTH; hashLength <= 40; hashLength += 4) {
    const colliding = collidingIds(names);
    if (colliding.length === 0) break;
    for (const id of colliding) names.set(id, withHash(base.get(id) ?? id, id, hashLength));
  }
  const ids = new Map([...names].map(([id, name]) => [name, id]));
  return {
    toName(id) {
      const name = names.get(id);
      if (name === undefined) {
        throw new GatewayError('tool_not_found', `"${id}" is not one of the tools being named`, {
          toolId: id,
        });
      }
      return name;
    },
    toId: (name) => ids.get(name),
  };
}

/** The provider name of one tool on its own (no other tool to collide with). */
export function providerToolName(tool: Pick<Tool, 'id' | 'namespace' | 'name'>): string {
  return buildNameMap([tool]).toName(tool.id);
}

function defaultName(tool: Pick<Tool, 'id' | 'namespace' | 'name'>): string {
  const flat = flatToolName(tool.namespace, tool.name);
  if (/^[a-zA-Z_]/.test(flat)) return flat;
  // A namespace may start with a digit; Gemini refuses such a function name.
  const prefixed = `_${flat}`;
  return prefixed.length <= MAX ? prefixed : withHash(prefixed, tool.id, FIRST_HASH_LENGTH);
}

function withHash(name: string, id: string, length: number): string {
  const hash = createHash('sha256').update(id).digest('hex').slice(0, length);
  return `${name.slice(0, MAX - length - 1)}_${hash}`;
}

function collidingIds(names: Map<string, string>): string[] {
  const byName = new Map<string, string[]>();
  for (const [id, name] of names) byName.set(name, [...(byName.get(name) ?? []), id]);
  return [...byName.values()].filter((ids) => ids.length > 1).flat();
}
