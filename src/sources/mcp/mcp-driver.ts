import type { SourceContext, SourceDriver, SourceSection } from '../source-driver.js';
import { PackageCache } from './package-cache.js';
import {
  mergeServerSections,
  type ParsedServerEntry,
  type ServerConfig,
  serverRecord,
} from './server-entry-schema.js';
import { serverTarget } from './server-target.js';
import { DEFAULT_STARTUP_TIMEOUT_MS } from './startup-timeout.js';

type McpServerSources = typeof import('./mcp-server-source.js');

/** The MCP server source's module, once a config had an enabled server (it loads the MCP client SDK). */
let loaded: McpServerSources | undefined;

/** One package cache per folder: its installs and waits are shared by the servers using it. */
const caches = new Map<string, PackageCache>();

function packageCache(dir: string, context: SourceContext): PackageCache {
  let cache = caches.get(dir);
  if (cache === undefined) {
    cache = new PackageCache({ dir, log: context.log.child({ component: 'package-cache' }) });
    caches.set(dir, cache);
  }
  return cache;
}

/** The catalog source id of the entry `key`. */
function sourceId(key: string): string {
  return `mcp:${key}`;
}

/**
 * Downstream MCP servers (`servers:`, or `mcpServers:` as other MCP clients spell it), stdio or
 * remote, each supervised and reconnected with backoff; keyed by server name.
 */
export const MCP_DRIVER: SourceDriver<
  'mcp',
  SourceSection<'servers', Record<string, ServerConfig>, ServerConfig>
> = {
  kind: 'mcp',
  trustGated: true,
  section: {
    name: 'servers',
    fields: {
      servers: serverRecord()
        .optional()
        .describe('Downstream MCP servers, stdio (`command`) or remote (`url`), keyed by name.'),
      mcpServers: serverRecord()
        .optional()
        .describe(
          'The same as `servers`, as other MCP clients spell it (a name may be in only one of the two).',
        ),
    },
    join: (fields, ctx) =>
      mergeServerSections(
        (fields.servers ?? {}) as Record<string, ParsedServerEntry>,
        (fields.mcpServers ?? {}) as Record<string, ParsedServerEntry>,
        ctx,
      ),
    entries: (servers) => Object.entries(servers),
    enabled: (entry) => entry.enabled,
    sourceId,
    async preload() {
      loaded ??= await import('./mcp-server-source.js');
    },
    create(name, entry, context) {
      if (!loaded)
        throw new Error('the MCP server source was not loaded (preload) for a config with servers');
      return new loaded.McpServerSource({
        name,
        namespace: entry.namespace,
        target: serverTarget(
          entry,
          context.baseDir,
          entry.kind === 'remote' && entry.oauth ? context.authProvider?.(name) : undefined,
          context.packageCacheDir === undefined ? undefined : packageCache(context.packageCacheDir, context),
          context.sandbox,
          name,
        ),
        ...(entry.timeoutMs === undefined ? {} : { timeoutMs: entry.timeoutMs }),
        connectTimeoutMs: entry.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
        relistIntervalMs: entry.relistIntervalMs,
        maxSessionLinks: entry.maxSessionLinks,
        ...(context.sessionLinkIdleMs === undefined ? {} : { linkIdleMs: context.sessionLinkIdleMs }),
        clientInfo: context.clientInfo,
        log: context.log.child({ server: name }),
        ...(context.backoff ? { backoff: context.backoff } : {}),
        ...(context.onSourceBack ? { onConnected: () => context.onSourceBack?.(sourceId(name)) } : {}),
      });
    },
  },
};
