import { dirname, resolve } from 'node:path';
import { attachSource } from '../catalog/attach-source.js';
import type { Catalog } from '../catalog/catalog.js';
import type { SourceState } from '../catalog/source.js';
import type { SourceSectionsDiff } from '../config/config-diff.js';
import type { ApertureConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { DownstreamCallObserver } from '../foundation/ports/operation-observer.js';
import type { DownstreamServer } from '../sources/mcp/downstream-server.js';
import { MCP_DRIVER } from '../sources/mcp/mcp-driver.js';
import type { TokenStatus } from '../sources/mcp/oauth/oauth-credential-store.js';
import type { DriverSource, SourceContext } from '../sources/source-driver.js';
import { CONFIGURED_DRIVERS, type ConfiguredKind } from '../sources/source-drivers.js';
import type { OAuthSupport } from './oauth-support.js';
import { PACKAGE_INFO } from './package-info.js';

/** What `/readyz` and `doctor` report of one source. */
export interface SourceStatus extends SourceState {
  id: string;
  kind: ConfiguredKind;
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
  /** Where packages of `npx -y pkg` servers are installed (`SourceContext.packageCacheDir`). */
  packageCacheDir?: string;
  /** Called with a source's id each time it is (re-)connected: it is back (circuit breakers). */
  onSourceBack?: (sourceId: string) => void;
  /** How long `started` waits for the first tries (`startup.waitMs`); default: until all were tried. */
  startupWaitMs?: number;
  /** Tokens of the servers that use OAuth. */
  oauth?: OAuthSupport;
  /** The config file, unreadable to sandboxed servers. */
  configFile?: string;
}

/**
 * Which remote sources a reload replaces, by source section (one per configured source driver);
 * see `RemoteSources.apply`.
 */
export type RemoteSourcesChange = SourceSectionsDiff;

/** One remote source as configured: `key` is its entry's key in its section (a server's name, …). */
interface Managed {
  key: string;
  /** Its driver's kind. */
  kind: ConfiguredKind;
  source: DriverSource;
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
  /** The enabled entries of each source section, in driver order, then config order. */
  private managed: Managed[];
  private first: { ready: Promise<void>; started: Promise<void> } | undefined;
  private catalog: Catalog | undefined;
  private observer: DownstreamCallObserver | undefined;
  /** The sources whose first try has ended (whatever the outcome), by source id. */
  private readonly tried = new Set<string>();
  /** The sources whose first try has not ended yet: source id → entry key (what the log names). */
  private readonly untried = new Map<string, string>();
  private waitOver = false;

  /**
   * Describes the configured sources; nothing connects or loads before `start`. A driver's heavy
   * module (the MCP client SDK, …) is imported only when its section has an enabled entry.
   */
  static async create(config: ApertureConfig, context: RemoteSourcesContext): Promise<RemoteSources> {
    await preload(config);
    return new RemoteSources(config, context);
  }

  private constructor(
    config: ApertureConfig,
    private readonly context: RemoteSourcesContext,
  ) {
    this.managed = this.describe(config);
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
    const replaced = new Set(
      CONFIGURED_DRIVERS.flatMap(({ section }) => {
        const { removed, changed } = change[section.name];
        return [...removed, ...changed].map((key) => section.sourceId(key));
      }),
    );
    const kept = new Map<string, Managed>();
    const stopping: Promise<void>[] = [];
    for (const managed of this.managed) {
      if (replaced.has(managed.source.id)) {
        managed.live = false;
        this.untried.delete(managed.source.id);
        this.tried.delete(managed.source.id);
        stopping.push(managed.source.stop().catch(() => {}));
        catalog?.remove(managed.source.id);
      } else {
        kept.set(managed.source.id, managed);
      }
    }
    // The stopped ones are gone before their successors start: a stdio server's process and a
    // successor's never run side by side.
    await Promise.all(stopping);
    await preload(config);
    const next: Managed[] = [];
    const attempts: Promise<void>[] = [];
    for (const managed of this.describe(config)) {
      const existing = kept.get(managed.source.id);
      if (existing) {
        next.push(existing);
        continue;
      }
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
    return this.managed.flatMap(({ source }) => (source.server ? [source.server] : []));
  }

  /** Every source's state: in driver order (MCP servers first), then config order. */
  statuses(): SourceStatus[] {
    // OAuth is the MCP servers' (`servers.<name>.oauth`): token sets are keyed by server name.
    const oauth = new Map(
      Object.entries(this.context.oauth?.enabled ? this.context.oauth.statuses() : {}).map(
        ([name, tokens]) => [MCP_DRIVER.section.sourceId(name), tokens],
      ),
    );
    return this.managed.map(({ kind, source }) => {
      const tokens = oauth.get(source.id);
      return { id: source.id, kind, ...source.state(), ...(tokens ? { oauth: tokens } : {}) };
    });
  }

  /**
   * `statuses()` with what only an admin may read (the console's servers page): for MCP servers,
   * since when the current connection is up and the last stderr lines. The caller masks them.
   */
  adminStatuses(): (SourceStatus & { connectedAt?: string; stderr?: string[] })[] {
    const byId = new Map(this.managed.map(({ source }) => [source.id, source]));
    return this.statuses().map((status) => {
      const details = byId.get(status.id)?.details?.();
      return details ? { ...status, ...details } : status;
    });
  }

  /** True once every source has been tried (whatever the outcome). */
  get settled(): boolean {
    return this.first !== undefined && this.managed.every((managed) => this.tried.has(managed.source.id));
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
    if (this.observer) source.observe?.(this.observer);
    this.untried.set(source.id, key);
    const catalog = this.catalog;
    if (!catalog) return Promise.resolve();
    return attachSource(catalog, source, this.context.log, { live: () => managed.live }).finally(() => {
      this.untried.delete(source.id);
      if (managed.live) this.tried.add(source.id);
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
      { servers: [...this.untried.values()], waitMs },
      'not up within startup.waitMs; serving without them, they join the catalog once connected',
    );
  }

  /** The configured sources, in order (nothing connects yet). */
  private describe(config: ApertureConfig): Managed[] {
    const { context } = this;
    const sourceContext: SourceContext = {
      baseDir: context.baseDir,
      log: context.log,
      clientInfo: { name: `aperture (${config.server.name})`, version: PACKAGE_INFO.version },
      ...(context.backoff ? { backoff: context.backoff } : {}),
      ...(context.sessionLinkIdleMs === undefined ? {} : { sessionLinkIdleMs: context.sessionLinkIdleMs }),
      ...(context.onSourceBack ? { onSourceBack: context.onSourceBack } : {}),
      ...(context.packageCacheDir === undefined ? {} : { packageCacheDir: context.packageCacheDir }),
      sandbox: {
        settings: config.sandbox,
        // The package cache sits in the state directory, which sandboxed servers may not read.
        ...(context.packageCacheDir === undefined ? {} : { stateDir: dirname(context.packageCacheDir) }),
        ...(context.configFile === undefined ? {} : { configFile: context.configFile }),
        // Secret files the gateway reads (Docker / Kubernetes secrets) are not the servers'.
        secretPaths: config.secrets.providers.flatMap((provider) =>
          provider.type === 'directory' ? [resolve(context.baseDir, provider.path)] : [],
        ),
      },
      ...(context.oauth ? { authProvider: (key: string) => context.oauth?.provider(key) } : {}),
    };
    const sources: Managed[] = [];
    for (const driver of CONFIGURED_DRIVERS) {
      for (const [key, entry] of enabledEntries(driver, config)) {
        const source = driver.section.create(key, entry, sourceContext);
        sources.push({ key, kind: driver.kind, source, live: true });
      }
    }
    return sources;
  }
}

/** The enabled entries of a driver's section in `config`, by key. */
function enabledEntries(
  driver: (typeof CONFIGURED_DRIVERS)[number],
  config: ApertureConfig,
): [string, unknown][] {
  const { section } = driver;
  const value = config[section.name];
  return section.entries(value).filter(([, entry]) => section.enabled?.(entry) ?? true);
}

/** Loads the modules of the drivers whose sections have an enabled entry in `config`. */
async function preload(config: ApertureConfig): Promise<void> {
  await Promise.all(
    CONFIGURED_DRIVERS.map((driver) =>
      driver.section.preload && enabledEntries(driver, config).length > 0
        ? driver.section.preload()
        : undefined,
    ),
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
