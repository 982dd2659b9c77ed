import { SKILL_NAMESPACE } from '../composition/skills/skill-definition.js';
import type { ApertureConfig } from '../config/config-schema.js';

/** What a one-shot command needs of the catalog. */
export interface OneShotNeeds {
  /**
   * The namespace of the tool(s) the command names (`run time:now`, `list --namespace memory`):
   * only the downstream server(s) of that namespace start — none for a built-in or local tool.
   */
  namespace?: string;
}

/**
 * How long a one-shot command that needs every server (`search`, `list` with no namespace) waits
 * for them at most: the servers that answered by then are listed, a slow one is not waited for
 * as `serve` would (`startup.waitMs`, default 10 s).
 */
export const ONE_SHOT_WAIT_MS = 5000;

/**
 * The config a one-shot command runs on: with a namespace, only the `servers` entries of that
 * namespace (starting six npx servers to run `time:now` took 12 s); without one, every server but a
 * shorter `startup.waitMs`; for a skill (`skill:…`), whose steps may call any server, the config as
 * it is. Other sections are kept: an OpenAPI service or agent starts no process.
 */
export function oneShotConfig(config: ApertureConfig, needs: OneShotNeeds = {}): ApertureConfig {
  // A skill's steps call tools of any namespace: every server, waited for as `serve` would.
  if (needs.namespace === SKILL_NAMESPACE) return config;
  if (needs.namespace === undefined) {
    return {
      ...config,
      startup: { ...config.startup, waitMs: Math.min(config.startup.waitMs, ONE_SHOT_WAIT_MS) },
    };
  }
  const servers = Object.fromEntries(
    Object.entries(config.servers).filter(([, entry]) => entry.namespace === needs.namespace),
  );
  return { ...config, servers };
}

/** The namespace of a tool id (`ns:name[:version]`); undefined for a bare name. */
export function namespaceOf(toolId: string): string | undefined {
  const colon = toolId.indexOf(':');
  return colon > 0 ? toolId.slice(0, colon) : undefined;
}
