import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { attachSource } from '../../catalog/attach-source.js';
import { InMemorySource } from '../../catalog/in-memory-source.js';
import type { ApertureConfig } from '../../config/config-schema.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { maskStrings } from '../../operations/secrets/secret-masker.js';
import { builtinSource } from '../../sources/builtin/builtin-source.js';
import { standardSource } from '../../sources/builtin/standard/standard-tools.js';
import { SOURCE_SECTION_NAMES } from '../../sources/source-drivers.js';
import type { SectionApplier } from '../config-reloader.js';
import { loadLocalTools } from '../local-tools.js';
import { RemoteSources } from '../remote-sources.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** MCP servers, OpenAPI services and A2A agents, loaded in the background. */
    remote: RemoteSources;
  }
}

/**
 * Where the tools come from. At start, local sources (built-in tools, tool modules) publish
 * before the gateway serves; remote ones start in the background. Every one is wired the same
 * way (`attachSource`). The gateway is ready once every remote source was tried (or
 * `startup.waitMs` is over).
 *
 * Reload of `servers`, `openapi`, `agents`: only the sources of added, removed or changed entries
 * stop or start (`RemoteSources.apply`); every other server keeps its connection and process. A
 * change to which servers use OAuth, or how, needs a restart.
 */
export const sources: FeatureFactory = async (config, parts) => {
  const { log, loaded, options, maskSecrets } = parts.gateway;
  const remote = await RemoteSources.create(config, {
    oauth: parts.need('oauth'),
    baseDir: loaded().baseDir,
    log,
    ...(options.backoff ? { backoff: options.backoff } : {}),
    ...(options.sessionLinkIdleMs === undefined ? {} : { sessionLinkIdleMs: options.sessionLinkIdleMs }),
    // A server that is back half-opens its circuit at once: reconnecting is not an open circuit.
    onSourceBack: (sourceId) => parts.need('policies').current.breakers?.recovered(sourceId),
    startupWaitMs: config.startup.waitMs,
    // `npx -y pkg` servers are installed once into the state directory and started from there.
    packageCacheDir: join(options.stateDir ?? resolve(loaded().baseDir, config.state.dir), 'packages'),
    ...(loaded().file === undefined ? {} : { configFile: loaded().file }),
  });
  parts.provide('remote', remote);
  const reload: SectionApplier = async (next, diff) => {
    // OAuth providers and the per-user middleware are built for the servers at start.
    if (!isDeepStrictEqual(oauthSettings(parts.config()), oauthSettings(next.config))) return 'restart';
    const servers = Object.values(next.config.servers).filter((server) => server.enabled);
    parts.need('naming').reconfigure({
      unprefixed: new Set(servers.filter((server) => !server.prefix).map((server) => server.namespace)),
      order: servers.map((server) => server.namespace),
    });
    await remote.apply(next.config, diff, next.config.startup.waitMs);
    return undefined;
  };
  return {
    name: 'sources',
    start: async () => {
      const catalog = parts.need('catalog');
      const local: InMemorySource[] = [];
      if (config.tools.builtin) local.push(builtinSource());
      if (config.tools.standard) local.push(standardSource(config.tools.standard, loaded().baseDir));
      const modules = await loadLocalTools(loaded());
      for (const module of modules)
        local.push(new InMemorySource(module.sourceId, module.kind, module.entries));
      for (const source of local) await attachSource(catalog, source, log);
      log.info({ tools: catalog.size, modules: modules.length }, 'catalog loaded');
      remote.start(catalog, parts.need('observability').downstream);
      // Each gateway has its own downstream connections: what one hears, the others act on.
      parts.need('shared')?.fanOut(() => remote.servers, catalog);
    },
    reload: Object.fromEntries(SOURCE_SECTION_NAMES.map((name) => [name, reload])),
    readiness: () => ({
      ready: remote.startupOver,
      // A URL or an error may carry a credential: every string is masked.
      sources: maskStrings(remote.statuses(), maskSecrets),
    }),
    close: () => remote.close(),
  };
};

/** Reconnects the downstream MCP server `name` now (the console's button); `not_found` if none. */
export async function reconnectServer(remote: RemoteSources, name: string): Promise<void> {
  const server = remote.servers.find((candidate) => candidate.name === name);
  if (!server) throw new GatewayError('not_found', `No downstream MCP server named "${name}"`);
  await server.reconnect();
}

/** Each server's `oauth` settings, by name: what the gateway's OAuth support was built from. */
function oauthSettings(config: ApertureConfig): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(config.servers)) {
    if (entry.kind === 'remote' && entry.oauth) settings[name] = entry.oauth;
  }
  return settings;
}
