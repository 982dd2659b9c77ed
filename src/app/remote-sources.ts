import { attachSource } from '../catalog/attach-source.js';
import type { Catalog } from '../catalog/catalog.js';
import { LoadedSource } from '../catalog/loaded-source.js';
import type { Source, SourceState } from '../catalog/source.js';
import type { KeyedDiff } from '../config/config-diff.js';
import type { ApertureConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/logger.js';
import type { DownstreamCallObserver } from '../foundation/operation-observer.js';
import type { DownstreamServer } from '../sources/mcp/downstream-server.js';
import type { TokenStatus } from '../sources/mcp/oauth/oauth-credential-store.js';
import { downstreamTarget } from './downstream-target.js';
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

/** Which remote sources a reload replaces, by config section; see `RemoteSources.apply`. */
export interface RemoteSourcesChange {
  servers: KeyedDiff;
  openapi: KeyedDiff;
  agents: KeyedDiff;
}

/** One remote source as configured: `key` is the MCP server's name, else the source id. */
interface Managed {
  key: string;
  source: Source & { kind: SourceStatus['kind'] };
  /** False once a reload stopped it: a late publication of its is dropped. */
  live: boolean;
}

/**
 * The sources that live outside the process — downstream MCP servers (supervised, reconnected with
 * backoff), OpenAPI services and A2A agents — loaded concurrently in the background: one that fails
 * is marked failed with its reason and the gateway serves the rest. `ready` settles once every
 * source has been tried once. A reload (`apply`) stops and starts only the sources it names.
 */
export class RemoteSources {
  /** Enabled MCP servers in config order, then OpenAPI services, then A2A agents. */
  private managed: Managed[];
  private first: { ready: Promise<void>; started: Promise<void> } | undefined;
  private catalog: Catalog | undefined;
  private observer: DownstreamCallObserver | undefined;
  /** The sources whose first try has ended (whatever the outcome), by key. */
  private readonly tried = new Set<string>();
  /** The sources whose first try has not ended yet: MCP server names, else source ids. */
  private readonly untried = new Set<string>();
  private waitOver = false;

  /**
   * Describes the configured sources; nothing connects or loads before `start`. The MCP server
   * source (and with it the MCP client SDK) is imported only when the config has a server.
   */
  static async create(config: ApertureConfig, context: RemoteSourcesContext): Promise<RemoteSources> {
    return new RemoteSources(config, context, hasServers(config) ? await loadMcpSources() : undefined);
  }

  private constructor(
    config: ApertureConfig,
    private readonly context: RemoteSourcesContext,
    /** The MCP server source's module, once a config had a server. */
    private mcp: McpSources | undefined,
  ) {
    this.managed = this.describe(config).map(([key, source]) => ({ key, source, live: true }));
  }

  /**
   * Starts every source publishing into the catalog, concurrently, in the background; `ready`
   * and `started` follow their first tries. `observer` is told of every downstream `tools/call`.
   */
  start(catalog: Catalog, observer?: DownstreamCallObserver): void {
    if (this.first) return;
    this.catalog = catalog;
    this.observer = observer;
    const attempts = this.managed.map((managed) => this.attach(managed));
    const ready = Promise.all(attempts).then(() => catalog.flush());
    this.first = { ready, started: this.startedWithin(ready, this.context.startupWaitMs, catalog) };
  }

  /**
   * Applies a reload: the sources of removed or changed entries stop and leave the catalog, those
   * of added or changed ones start; every other source keeps running untouched (same connection,
   * same process). Settles once the new sources had their first try, bounded by `waitMs`.
   */
  async apply(config: ApertureConfig, change: RemoteSourcesChange, waitMs?: number): Promise<void> {
    const catalog = this.catalog;
    const replaced = new Set([
      ...[...change.servers.removed, ...change.servers.changed].map((name) => `mcp:${name}`),
      ...[...change.openapi.removed, ...change.openapi.changed].map((ns) => `openapi:${ns}`),
      ...[...change.agents.removed, ...change.agents.changed].map((name) => `a2a:${name}`),
    ]);
    const kept = new Map<string, Managed>();
    const stopping: Promise<void>[] = [];
    for (const managed of this.managed) {
      if (replaced.has(managed.source.id)) {
        managed.live = false;
        this.untried.delete(managed.key);
        this.tried.delete(managed.key);
        stopping.push(managed.source.stop().catch(() => {}));
        catalog?.remove(managed.source.id);
      } else {
        kept.set(managed.source.id, managed);
      }
    }
    // The stopped ones are gone before their successors start: a stdio server's process and a
    // successor's never run side by side.
    await Promise.all(stopping);
    if (hasServers(config)) this.mcp ??= await loadMcpSources();
    const next: Managed[] = [];
    const attempts: Promise<void>[] = [];
    for (const [key, source] of this.describe(config)) {
      const existing = kept.get(source.id);
      if (existing) {
        next.push(existing);
        continue;
      }
      const managed: Managed = { key, source, live: true };
      next.push(managed);
      if (this.first) attempts.push(this.attach(managed));
    }
    this.managed = next;
    if (attempts.length === 0) return;
    const tried = Promise.all(attempts);
    await (waitMs === undefined ? tried : Promise.race([tried, delay(waitMs)]));
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
    const mcp = this.mcp;
    if (!mcp) return [];
    return this.managed.flatMap(({ source }) =>
      source instanceof mcp.McpServerSource && source.server ? [source.server] : [],
    );
  }

  /** Every source's state: MCP servers first, in config order. */
  statuses(): SourceStatus[] {
    const oauth = this.context.oauth?.enabled ? this.context.oauth.statuses() : {};
    return this.managed.map(({ source }) => {
      const tokens = source.kind === 'mcp' ? oauth[source.id.slice('mcp:'.length)] : undefined;
      return { id: source.id, kind: source.kind, ...source.state(), ...(tokens ? { oauth: tokens } : {}) };
    });
  }

  /**
   * `statuses()` with what only an admin may read (the console's servers page): for MCP servers,
   * since when the current connection is up and the last stderr lines. The caller masks them.
   */
  adminStatuses(): (SourceStatus & { connectedAt?: string; stderr?: string[] })[] {
    const byId = new Map(this.managed.map(({ source }) => [source.id, source]));
    const mcp = this.mcp;
    return this.statuses().map((status) => {
      const source = byId.get(status.id);
      return mcp && source instanceof mcp.McpServerSource ? { ...status, ...source.details() } : status;
    });
  }

  /** True once every source has been tried (whatever the outcome). */
  get settled(): boolean {
    return this.first !== undefined && this.managed.every((managed) => this.tried.has(managed.key));
  }

  /** True once `started` has settled: every source tried, or the start-up wait over. */
  get startupOver(): boolean {
    return this.settled || this.waitOver;
  }

  /** Stops every source (MCP servers and the processes of stdio ones). */
  async close(): Promise<void> {
    await Promise.allSettled(this.managed.map(({ source }) => source.stop()));
  }

  private attach(managed: Managed): Promise<void> {
    const { key, source } = managed;
    if (this.observer && this.mcp && source instanceof this.mcp.McpServerSource)
      source.observe(this.observer);
    this.untried.add(key);
    const catalog = this.catalog;
    if (!catalog) return Promise.resolve();
    return attachSource(catalog, source, this.context.log, { live: () => managed.live }).finally(() => {
      this.untried.delete(key);
      if (managed.live) this.tried.add(key);
    });
  }

  private async startedWithin(
    ready: Promise<void>,
    waitMs: number | undefined,
    catalog: Catalog,
  ): Promise<void> {
    if (waitMs === undefined || this.managed.length === 0) return ready;
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

  /** The configured sources, in order: `[key, source]` (nothing connects yet). */
  private describe(config: ApertureConfig): [string, Managed['source']][] {
    const { context } = this;
    const sources: [string, Managed['source']][] = [];
    for (const [name, entry] of Object.entries(config.servers)) {
      if (!entry.enabled) continue;
      // Loaded by `create` and `apply` for any config with a server.
      if (!this.mcp) throw new Error('the MCP server source was not loaded for a config with servers');
      const source = new this.mcp.McpServerSource({
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
      });
      sources.push([name, source]);
    }
    for (const source of this.loaded(config, context)) sources.push([source.id, source]);
    return sources;
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

type McpSources = typeof import('./mcp-server-source.js');

function loadMcpSources(): Promise<McpSources> {
  return import('./mcp-server-source.js');
}

/** Whether the config has an enabled MCP server (what needs the MCP server source). */
function hasServers(config: ApertureConfig): boolean {
  return Object.values(config.servers).some((entry) => entry.enabled);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
