import { attachSource } from '../catalog/attach-source.js';
import type { Catalog } from '../catalog/catalog.js';
import { LoadedSource } from '../catalog/loaded-source.js';
import type { Source, SourceState } from '../catalog/source.js';
import type { ApertureConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/logger.js';
import type { DownstreamCallObserver } from '../foundation/operation-observer.js';
import type { DownstreamServer } from '../sources/mcp/downstream-server.js';
import type { TokenStatus } from '../sources/mcp/oauth/oauth-credential-store.js';
import { downstreamTarget } from './downstream-target.js';
import { McpServerSource } from './mcp-server-source.js';
import type { OAuthSupport } from './oauth-support.js';
import { PACKAGE_INFO } from './package-info.js';

/** What `/readyz` and `doctor` report of one source. */
export interface SourceStatus extends SourceState {
  id: string;
  kind: 'mcp' | 'openapi' | 'a2a';
  /** An OAuth server's token sets: present or not, expiry, last refresh error (never a token). */
  oauth?: TokenStatus[];
}

export interface RemoteSourcesContext {
  baseDir: string;
  log: Logger;
  /** Reconnection backoff bounds for MCP servers (tests shorten them). */
  backoff?: { minMs?: number; maxMs?: number };
  /** How long an idle session link stays open (default 60 s; tests shorten it). */
  sessionLinkIdleMs?: number;
  /** Called with a source's id each time it is (re-)connected: it is back (circuit breakers). */
  onSourceBack?: (sourceId: string) => void;
  /** How long `started` waits for the first tries (`startup.waitMs`); default: until all were tried. */
  startupWaitMs?: number;
  /** Tokens of the servers that use OAuth. */
  oauth?: OAuthSupport;
}

/**
 * The sources that live outside the process — downstream MCP servers (supervised, reconnected with
 * backoff), OpenAPI services and A2A agents — loaded concurrently in the background: one that fails
 * is marked failed with its reason and the gateway serves the rest. `ready` settles once every
 * source has been tried once.
 */
export class RemoteSources {
  /** Enabled MCP servers in config order, then OpenAPI services, then A2A agents. */
  private readonly sources: (Source & { kind: SourceStatus['kind'] })[] = [];
  private readonly mcp: McpServerSource[] = [];
  private first: { ready: Promise<void>; started: Promise<void> } | undefined;
  private tried = 0;
  /** The sources whose first try has not ended yet: MCP server names, else source ids. */
  private readonly untried = new Set<string>();
  private waitOver = false;

  /** Describes the configured sources; nothing connects or loads before `start`. */
  constructor(
    config: ApertureConfig,
    private readonly context: RemoteSourcesContext,
  ) {
    for (const [name, entry] of Object.entries(config.servers)) {
      if (!entry.enabled) continue;
      this.mcp.push(
        new McpServerSource({
          name,
          namespace: entry.namespace,
          target: downstreamTarget(
            entry,
            context.baseDir,
            context.oauth ? { name, support: context.oauth } : undefined,
          ),
          ...(entry.timeoutMs === undefined ? {} : { timeoutMs: entry.timeoutMs }),
          relistIntervalMs: entry.relistIntervalMs,
          maxSessionLinks: entry.maxSessionLinks,
          ...(context.sessionLinkIdleMs === undefined ? {} : { linkIdleMs: context.sessionLinkIdleMs }),
          clientInfo: { name: `aperture (${config.server.name})`, version: PACKAGE_INFO.version },
          log: context.log.child({ server: name }),
          ...(context.backoff ? { backoff: context.backoff } : {}),
          ...(context.onSourceBack ? { onConnected: () => context.onSourceBack?.(`mcp:${name}`) } : {}),
        }),
      );
    }
    this.sources.push(...this.mcp, ...this.loaded(config, context));
  }

  /**
   * Starts every source publishing into the catalog, concurrently, in the background; `ready`
   * and `started` follow their first tries. `observer` is told of every downstream `tools/call`.
   */
  start(catalog: Catalog, observer?: DownstreamCallObserver): void {
    if (this.first) return;
    if (observer) for (const source of this.mcp) source.observe(observer);
    const attempts = this.sources.map((source) => {
      const key = source instanceof McpServerSource ? source.id.slice('mcp:'.length) : source.id;
      this.untried.add(key);
      return attachSource(catalog, source, this.context.log).finally(() => {
        this.untried.delete(key);
        this.tried++;
      });
    });
    const ready = Promise.all(attempts).then(() => catalog.flush());
    this.first = { ready, started: this.startedWithin(ready, this.context.startupWaitMs, catalog) };
  }

  /** Settles once every source has been tried once (at once before `start`). */
  get ready(): Promise<void> {
    return this.first?.ready ?? Promise.resolve();
  }

  /**
   * Settles once every source was tried, or when `startupWaitMs` is over, whichever comes first;
   * the sources still being tried then are logged (they join the catalog when they connect).
   */
  get started(): Promise<void> {
    return this.first?.started ?? Promise.resolve();
  }

  /** The supervised MCP servers, in config order (once started). */
  get servers(): DownstreamServer[] {
    return this.mcp.flatMap((source) => (source.server ? [source.server] : []));
  }

  private async startedWithin(
    ready: Promise<void>,
    waitMs: number | undefined,
    catalog: Catalog,
  ): Promise<void> {
    if (waitMs === undefined || this.sources.length === 0) return ready;
    let timer: NodeJS.Timeout | undefined;
    const over = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      // A waiting timer never keeps the process alive by itself.
      timer.unref();
    });
    await Promise.race([ready, over]);
    clearTimeout(timer);
    this.waitOver = true;
    if (this.untried.size === 0) return;
    // What the others published so far is in the catalog now, not after the change debounce.
    catalog.flush();
    this.context.log.warn(
      { servers: [...this.untried], waitMs },
      'not up within startup.waitMs; serving without them, they join the catalog once connected',
    );
  }

  /** Every source's state: MCP servers first, in config order. */
  statuses(): SourceStatus[] {
    const oauth = this.context.oauth?.enabled ? this.context.oauth.statuses() : {};
    return this.sources.map((source) => {
      const tokens = source.kind === 'mcp' ? oauth[source.id.slice('mcp:'.length)] : undefined;
      return { id: source.id, kind: source.kind, ...source.state(), ...(tokens ? { oauth: tokens } : {}) };
    });
  }

  /** True once every source has been tried (whatever the outcome). */
  get settled(): boolean {
    return this.first !== undefined && this.tried >= this.sources.length;
  }

  /** True once `started` has settled: every source tried, or the start-up wait over. */
  get startupOver(): boolean {
    return this.settled || this.waitOver;
  }

  /** Stops every source (MCP servers and the processes of stdio ones). */
  async close(): Promise<void> {
    await Promise.allSettled(this.sources.map((source) => source.stop()));
  }

  /** OpenAPI services and A2A agents: loaded once, their loaders imported only when configured. */
  private loaded(config: ApertureConfig, context: RemoteSourcesContext): LoadedSource<'openapi' | 'a2a'>[] {
    const sources: LoadedSource<'openapi' | 'a2a'>[] = [];
    for (const entry of config.openapi) {
      const id = `openapi:${entry.namespace}`;
      const load = async () => {
        const { loadOpenApiSource } = await import('../sources/openapi/openapi-source.js');
        return loadOpenApiSource(entry, { sourceId: id, baseDir: context.baseDir, log: context.log });
      };
      sources.push(new LoadedSource(id, 'openapi', load, context.log));
    }
    for (const [name, agent] of Object.entries(config.agents)) {
      const load = async () => {
        const { loadA2aAgentSource } = await import('../sources/a2a/a2a-agent-source.js');
        return loadA2aAgentSource(name, agent, { log: context.log });
      };
      sources.push(new LoadedSource(`a2a:${name}`, 'a2a', load, context.log));
    }
    return sources;
  }
}
