import type { Catalog } from '../catalog/catalog.js';
import type { CatalogEntry } from '../catalog/catalog-entry.js';
import type { ApertureConfig } from '../config/config-schema.js';
import { toGatewayError } from '../foundation/gateway-error.js';
import type { Logger } from '../foundation/logger.js';
import type { DownstreamCallObserver } from '../foundation/operation-observer.js';
import { DownstreamServer } from '../sources/mcp/downstream-server.js';
import { downstreamTarget } from './downstream-target.js';
import { PACKAGE_INFO } from './package-info.js';

/** What `/readyz` and `doctor` report of one source. */
export interface SourceStatus {
  id: string;
  kind: 'mcp' | 'openapi' | 'a2a';
  state: 'connecting' | 'connected' | 'failed';
  tools: number;
  /** MCP servers: the transport in use (`stdio`, `streamable-http`, `sse`). */
  transport?: string;
  lastError?: { code: string; message: string };
}

interface Loader {
  id: string;
  kind: 'openapi' | 'a2a';
  load: () => Promise<CatalogEntry[]>;
}

export interface RemoteSourcesContext {
  baseDir: string;
  log: Logger;
  /** Reconnection backoff bounds for MCP servers (tests shorten them). */
  backoff?: { minMs?: number; maxMs?: number };
  /** How long an idle session link stays open (default 60 s; tests shorten it). */
  sessionLinkIdleMs?: number;
  /** Told of every downstream `tools/call` (spans). */
  downstreamObserver?: DownstreamCallObserver;
  /** Called with a source's id each time it is (re-)connected: it is back (circuit breakers). */
  onSourceBack?: (sourceId: string) => void;
  /** How long `started` waits for the first tries (`startup.waitMs`); default: until all were tried. */
  startupWaitMs?: number;
}

/**
 * The sources that live outside the process — downstream MCP servers (supervised, reconnected with
 * backoff), OpenAPI services and A2A agents — loaded concurrently in the background: one that fails
 * is marked failed with its reason and the gateway serves the rest. `ready` settles once every
 * source has been tried once.
 */
export class RemoteSources {
  private readonly status = new Map<string, SourceStatus>();
  /** Enabled MCP servers, in config order. */
  readonly servers: DownstreamServer[] = [];
  readonly ready: Promise<void>;
  /**
   * Settles once every source was tried, or when `startupWaitMs` is over, whichever comes first;
   * the sources still being tried then are logged (they join the catalog when they connect).
   */
  readonly started: Promise<void>;
  private tried = 0;
  private readonly total: number;
  /** The sources whose first try has not ended yet: MCP server names, else source ids. */
  private readonly untried = new Set<string>();
  private waitOver = false;

  constructor(config: ApertureConfig, catalog: Catalog, context: RemoteSourcesContext) {
    const loaders = this.loaders(config, context);
    for (const loader of loaders)
      this.status.set(loader.id, { id: loader.id, kind: loader.kind, state: 'connecting', tools: 0 });
    for (const [name, entry] of Object.entries(config.servers)) {
      if (!entry.enabled) continue;
      const log = context.log.child({ server: name });
      this.servers.push(
        new DownstreamServer({
          name,
          namespace: entry.namespace,
          target: downstreamTarget(entry, context.baseDir),
          ...(entry.timeoutMs === undefined ? {} : { timeoutMs: entry.timeoutMs }),
          relistIntervalMs: entry.relistIntervalMs,
          maxSessionLinks: entry.maxSessionLinks,
          ...(context.sessionLinkIdleMs === undefined ? {} : { linkIdleMs: context.sessionLinkIdleMs }),
          clientInfo: { name: `aperture (${config.server.name})`, version: PACKAGE_INFO.version },
          publish: (entries) => {
            const refused = catalog.replaceSource(`mcp:${name}`, entries);
            if (refused.length > 0) log.warn({ refused }, 'tool ids already registered by another source');
          },
          log,
          ...(context.backoff ? { backoff: context.backoff } : {}),
          ...(context.downstreamObserver ? { observer: context.downstreamObserver } : {}),
          ...(context.onSourceBack ? { onConnected: () => context.onSourceBack?.(`mcp:${name}`) } : {}),
        }),
      );
    }
    this.total = loaders.length + this.servers.length;
    const attempts = [
      ...loaders.map((loader) => [loader.id, this.run(loader, catalog, context.log)] as const),
      ...this.servers.map((server) => [server.name, server.firstAttempt] as const),
    ].map(([id, attempt]) => {
      this.untried.add(id);
      return attempt.finally(() => {
        this.untried.delete(id);
        this.tried++;
      });
    });
    this.ready = Promise.all(attempts).then(() => catalog.flush());
    this.started = this.startedWithin(context.startupWaitMs, catalog, context.log);
  }

  private async startedWithin(waitMs: number | undefined, catalog: Catalog, log: Logger): Promise<void> {
    if (waitMs === undefined || this.total === 0) return this.ready;
    let timer: NodeJS.Timeout | undefined;
    const over = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, waitMs);
      // A waiting timer never keeps the process alive by itself.
      timer.unref();
    });
    await Promise.race([this.ready, over]);
    clearTimeout(timer);
    this.waitOver = true;
    if (this.untried.size === 0) return;
    // What the others published so far is in the catalog now, not after the change debounce.
    catalog.flush();
    log.warn(
      { servers: [...this.untried], waitMs },
      'not up within startup.waitMs; serving without them, they join the catalog once connected',
    );
  }

  /** Every source's state: MCP servers first, in config order. */
  statuses(): SourceStatus[] {
    const servers = this.servers.map((server): SourceStatus => {
      const snapshot = server.snapshot();
      return {
        id: server.sourceId,
        kind: 'mcp',
        state: snapshot.state === 'stopped' ? 'failed' : snapshot.state,
        tools: snapshot.tools,
        ...(snapshot.transport ? { transport: snapshot.transport } : {}),
        ...(snapshot.lastError ? { lastError: snapshot.lastError } : {}),
      };
    });
    return [...servers, ...[...this.status.values()].map((s) => ({ ...s }))];
  }

  /** True once every source has been tried (whatever the outcome). */
  get settled(): boolean {
    return this.tried >= this.total;
  }

  /** True once `started` has settled: every source tried, or the start-up wait over. */
  get startupOver(): boolean {
    return this.settled || this.waitOver;
  }

  /** Stops every MCP server (and the processes of stdio ones). */
  async close(): Promise<void> {
    await Promise.allSettled(this.servers.map((server) => server.stop()));
  }

  private loaders(config: ApertureConfig, context: RemoteSourcesContext): Loader[] {
    const loaders: Loader[] = [];
    for (const entry of config.openapi) {
      const id = `openapi:${entry.namespace}`;
      loaders.push({
        id,
        kind: 'openapi',
        load: async () => {
          const { loadOpenApiSource } = await import('../sources/openapi/openapi-source.js');
          return loadOpenApiSource(entry, { sourceId: id, baseDir: context.baseDir, log: context.log });
        },
      });
    }
    for (const [name, agent] of Object.entries(config.agents)) {
      loaders.push({
        id: `a2a:${name}`,
        kind: 'a2a',
        load: async () => {
          const { loadA2aAgentSource } = await import('../sources/a2a/a2a-agent-source.js');
          return loadA2aAgentSource(name, agent, { log: context.log });
        },
      });
    }
    return loaders;
  }

  private async run(loader: Loader, catalog: Catalog, log: Logger): Promise<void> {
    const status = this.status.get(loader.id) as SourceStatus;
    try {
      const entries = await loader.load();
      const refused = catalog.replaceSource(loader.id, entries);
      if (refused.length > 0)
        log.warn({ source: loader.id, refused }, 'tool ids already registered by another source');
      status.state = 'connected';
      status.tools = entries.length - refused.length;
      log.info({ source: loader.id, tools: status.tools }, 'source loaded');
    } catch (error) {
      const failure = toGatewayError(error);
      status.state = 'failed';
      status.lastError = { code: failure.code, message: failure.message };
      log.error(
        { source: loader.id, code: failure.code, err: failure.message },
        'source failed; serving the others',
      );
    }
  }
}
