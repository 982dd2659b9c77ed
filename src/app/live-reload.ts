import { isDeepStrictEqual } from 'node:util';
import type { Catalog } from '../catalog/catalog.js';
import { ToolOverrides } from '../catalog/tool-overrides.js';
import type { ApertureConfig } from '../config/config-schema.js';
import { Authenticator } from '../operations/auth/authenticator.js';
import type { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import type { SectionApplier } from './config-reloader.js';
import type { RemoteSources } from './remote-sources.js';

/** What the live appliers change in a running gateway. */
export interface LiveReloadParts {
  catalog: Catalog;
  remote: RemoteSources;
  naming: FlatNaming;
  /** The running config (before the reload). */
  current: () => ApertureConfig;
  /** Swaps the authenticator the HTTP auth middleware asks. */
  setAuthenticator: (authenticator: Authenticator) => void;
}

/**
 * The config sections a reload applies without a restart, each to the part that holds it:
 *
 * - `servers`, `openapi`, `agents`: only the sources of added, removed or changed entries stop or
 *   start (`RemoteSources.apply`); every other server keeps its connection and process.
 * - `overrides`: re-applied to every source's tools (`Catalog.setOverrides`); only the tools whose
 *   merged override changed are reported to sessions.
 * - `auth`: new API keys and JWT settings take effect on the next request, as long as auth stays on
 *   and `oauth` is unchanged (turning auth on or off changes the HTTP routes: a restart).
 *
 * Open MCP sessions hear of every resulting catalog change as `tools/list_changed`.
 */
export function liveAppliers(parts: LiveReloadParts): Record<string, SectionApplier> {
  const sources: SectionApplier = async (next, diff) => {
    const servers = Object.values(next.config.servers).filter((server) => server.enabled);
    parts.naming.reconfigure({
      unprefixed: new Set(servers.filter((server) => !server.prefix).map((server) => server.namespace)),
      order: servers.map((server) => server.namespace),
    });
    await parts.remote.apply(next.config, diff, next.config.startup.waitMs);
    return undefined;
  };
  const overrides: SectionApplier = (next) => {
    parts.catalog.setOverrides(new ToolOverrides(next.config.overrides));
    return undefined;
  };
  const auth: SectionApplier = (next) => {
    const before = parts.current().auth;
    const after = next.config.auth;
    const wasOn = authenticatorOf(before).enabled;
    const authenticator = authenticatorOf(after);
    if (!wasOn || !authenticator.enabled || !isDeepStrictEqual(before.oauth, after.oauth)) return 'restart';
    parts.setAuthenticator(authenticator);
    return undefined;
  };
  return { servers: sources, openapi: sources, agents: sources, overrides, auth };
}

/** The authenticator of an `auth` section, as `Gateway` builds it at start. */
export function authenticatorOf(auth: ApertureConfig['auth']): Authenticator {
  const { apiKeys, jwt } = auth;
  return new Authenticator({
    apiKeys,
    ...(jwt ? { jwt: { ...jwt, clockToleranceSec: jwt.clockToleranceSec } } : {}),
  });
}
