import { isDeepStrictEqual } from 'node:util';
import type { Catalog } from '../catalog/catalog.js';
import { ToolOverrides } from '../catalog/tool-overrides.js';
import type { ToolsetRegistry } from '../composition/toolsets/toolset-registry.js';
import type { ApertureConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/logger.js';
import { Authenticator } from '../operations/auth/authenticator.js';
import type { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import { type CallPolicies, reloadedPolicies } from './call-policies.js';
import type { SectionApplier } from './config-reloader.js';
import type { RemoteSources } from './remote-sources.js';
import type { TrustParts } from './trust-parts.js';

/** What the live appliers change in a running gateway. */
export interface LiveReloadParts {
  catalog: Catalog;
  remote: RemoteSources;
  naming: FlatNaming;
  /** The running config (before the reload). */
  current: () => ApertureConfig;
  /** Swaps the authenticator the HTTP auth middleware asks. */
  setAuthenticator: (authenticator: Authenticator) => void;
  /** The call policies in force, read by the pipeline's swappable slot on every call. */
  policies: { current: CallPolicies };
  toolsets: ToolsetRegistry;
  /** Rebuilds search with new settings; `'restart'` when they need another embedder. */
  setSearch: (before: ApertureConfig['search'], after: ApertureConfig['search']) => 'restart' | undefined;
  /** Makes sessions opened from now on use this exposure (loads what it counts tokens with). */
  setExposure: (exposure: ApertureConfig['exposure']) => Promise<void>;
  /** Serves these skills from now on. */
  setSkills: (definitions: ApertureConfig['skills']) => void;
  /** Trust on first use; undefined when the gateway started with `trust.mode: off`. */
  trust: TrustParts | undefined;
  log: Logger;
}

/**
 * The config sections a reload applies without a restart, each to the part that holds it:
 *
 * - `servers`, `openapi`, `agents`: only the sources of added, removed or changed entries stop or
 *   start (`RemoteSources.apply`); every other server keeps its connection and process. A change to
 *   which servers use OAuth, or how, needs a restart.
 * - `overrides`: re-applied to every source's tools (`Catalog.setOverrides`); only the tools whose
 *   merged override changed are reported to sessions.
 * - `auth`: new API keys and JWT settings take effect on the next request, as long as auth stays on
 *   and `oauth` is unchanged (turning auth on or off changes the HTTP routes: a restart).
 * - `rateLimits`, `cache`, `resilience`: rebuilt from the next call on; a part whose section did not
 *   change keeps its state (buckets, cached results, circuits).
 * - `toolsets`: redefined in place, so the scopes of open sessions follow (`ToolsetRegistry.replace`).
 * - `skills`: unchanged skills keep their tools, changed ones are compiled and served anew.
 * - `search`: rebuilt with the new settings (`LiveSearch`), unless they need another embedder.
 * - `trust`: a new mode (warn ↔ quarantine) or new pins apply at once; turning trust on or off
 *   needs a restart.
 * - `exposure`: for sessions opened after the reload; an open session keeps the exposure it
 *   started with (its client was told its tools list shape at initialize).
 *
 * Open MCP sessions hear of every resulting catalog change as `tools/list_changed`.
 */
export function liveAppliers(parts: LiveReloadParts): Record<string, SectionApplier> {
  const sources: SectionApplier = async (next, diff) => {
    // OAuth providers and the per-user middleware are built for the servers at start.
    if (!isDeepStrictEqual(oauthSettings(parts.current()), oauthSettings(next.config))) return 'restart';
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
  // One applier for the three: each part whose section did not change keeps its state.
  const policies: SectionApplier = (next, diff) => {
    parts.policies.current = reloadedPolicies(parts.policies.current, next.config, diff.sections, parts.log);
    return undefined;
  };
  const toolsets: SectionApplier = (next) => {
    parts.toolsets.replace(next.config.toolsets);
    // No tool changed, but what each toolset's sessions see did: they are told.
    parts.catalog.touch();
    return undefined;
  };
  const search: SectionApplier = (next) => parts.setSearch(parts.current().search, next.config.search);
  const exposure: SectionApplier = async (next) => {
    await parts.setExposure(next.config.exposure);
    return undefined;
  };
  const trust: SectionApplier = (next) =>
    parts.trust ? parts.trust.reconfigure(next.config.trust) : 'restart';
  const skills: SectionApplier = (next) => {
    parts.setSkills(next.config.skills);
    return undefined;
  };
  return {
    servers: sources,
    openapi: sources,
    agents: sources,
    overrides,
    auth,
    rateLimits: policies,
    cache: policies,
    resilience: policies,
    toolsets,
    skills,
    search,
    exposure,
    trust,
  };
}

/** The authenticator of an `auth` section, as `Gateway` builds it at start. */
export function authenticatorOf(auth: ApertureConfig['auth']): Authenticator {
  const { apiKeys, jwt } = auth;
  return new Authenticator({
    apiKeys,
    ...(jwt ? { jwt: { ...jwt, clockToleranceSec: jwt.clockToleranceSec } } : {}),
  });
}

/** Each server's `oauth` settings, by name: what the gateway's OAuth support was built from. */
function oauthSettings(config: ApertureConfig): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(config.servers)) {
    if (entry.kind === 'remote' && entry.oauth) settings[name] = entry.oauth;
  }
  return settings;
}
