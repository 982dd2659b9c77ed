import type { CodeExecutor } from '../composition/code/code-executor.js';
import type { SkillCatalog } from '../composition/skills/skill-catalog.js';
import type { ToolsetRegistry } from '../composition/toolsets/toolset-registry.js';
import { type ApertureConfig, DEFAULT_CONFIG } from '../config/config-schema.js';
import type { TokenCounter } from '../foundation/ports/token-counter.js';
import type { ActivityFeed } from '../operations/observe/activity-feed.js';
import type { AdminParts } from '../surfaces/console/admin-routes.js';
import type { CompositionParts } from '../surfaces/console/composition-routes.js';
import type { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import { checkConfigText } from './config-check.js';
import { maskedConfig } from './masked-config.js';
import { tokenCosts } from './token-costs.js';

/** What the gateway lends the console's API; getters, since some parts are made after the server. */
export interface ConsoleSources {
  /** The running config (a reload replaces it). */
  config(): ApertureConfig;
  activity: ActivityFeed;
  naming: FlatNaming;
  toolsets: ToolsetRegistry;
  code: CodeExecutor | undefined;
  skills(): SkillCatalog | undefined;
  /** The tokenizer of the configured encoding (loaded on first use when exposure is not `auto`). */
  tokenCounter(): Promise<TokenCounter | undefined>;
  sources(): { id: string }[];
  /** A source's circuit-breaker state; undefined while circuit breaking is off. */
  circuit(sourceId: string): string | undefined;
  reconnect(name: string): Promise<void>;
  /** OAuth logins on request (the console's "Log in"); absent when no server uses OAuth. */
  oauth?: AdminParts['oauth'];
  maskSecrets: (text: string) => string;
}

/**
 * The parts of the management API (`surfaces/console/`), made from the gateway's own: one place
 * that decides what the console may read (the masked config, source states) and operate.
 */
export function consoleParts(from: ConsoleSources): {
  admin: Omit<AdminParts, 'authEnabled'>;
  composition: CompositionParts;
} {
  const code = from.code;
  return {
    admin: {
      // Each source with its circuit's state, when circuit breaking is on.
      sources: () =>
        from.sources().map((source) => {
          const circuit = from.circuit(source.id);
          return circuit === undefined ? source : { ...source, circuit };
        }),
      reconnect: (name) => from.reconnect(name),
      ...(from.oauth ? { oauth: from.oauth } : {}),
      activity: from.activity,
      config: () => maskedConfig(from.config(), from.maskSecrets),
      defaults: () => maskedConfig(DEFAULT_CONFIG, from.maskSecrets),
      checkConfig: checkConfigText,
      tokenCosts: async (scope) =>
        tokenCosts(scope, {
          code: code !== undefined,
          toolsets: from.toolsets.size > 0,
          skills: from.skills() !== undefined,
          naming: from.naming,
          exposure: from.config().exposure,
          counter: await from.tokenCounter(),
          encoding: from.config().exposure.encoding,
        }),
      ...(code ? { executeCode: (scope, request, caller) => code.execute(scope, request, { caller }) } : {}),
    },
    composition: {
      toolsets: from.toolsets,
      get skills() {
        return from.skills();
      },
    },
  };
}
