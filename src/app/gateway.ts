import type { Catalog } from '../catalog/catalog.js';
import type { CodeExecutor } from '../composition/code/code-executor.js';
import type { SkillCatalog } from '../composition/skills/skill-catalog.js';
import type { ToolScope } from '../composition/tool-scope.js';
import type { ToolsetRegistry } from '../composition/toolsets/toolset-registry.js';
import { assertToolsetReferences } from '../config/access-schema.js';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from '../config/load-config.js';
import type { QueryMemoryStatus } from '../discovery/query-memory.js';
import type { SemanticStatus } from '../discovery/semantic-index.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Logger } from '../foundation/ports/logger.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { InFlightCalls } from '../foundation/util/in-flight-calls.js';
import type { ActivityFeed } from '../operations/observe/activity-feed.js';
import { growingMasker } from '../operations/secrets/growing-masker.js';
import type { DownstreamServer } from '../sources/mcp/downstream-server.js';
import type { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import type { McpSessionFactory } from '../surfaces/mcp/session-factory.js';
import type { CallPolicies } from './call-policies.js';
import { ConfigReloader, type ReloadOutcome, type ReloadTrigger } from './config-reloader.js';
import { GatewayParts } from './features/feature.js';
import { FeatureList } from './features/feature-list.js';
import { FEATURES } from './features/index.js';
import { serveStdio } from './features/mcp-sessions.js';
import { reconnectServer } from './features/sources.js';
import type { HttpListener } from './http-server.js';
import type { SourceStatus } from './remote-sources.js';
import type { SharedStateReadiness } from './shared-state.js';
import type { TrustParts, TrustReadiness } from './trust-parts.js';

export type { HttpListener } from './http-server.js';

export interface GatewayOptions {
  loaded: LoadedConfig;
  log: Logger;
  /** Reconnection backoff bounds for downstream servers (default 0.5 s to 30 s). */
  backoff?: { minMs?: number; maxMs?: number };
  /** How long a downstream session link with nothing in flight stays open (default 60 s). */
  sessionLinkIdleMs?: number;
  /** The state directory chosen for this run (`--state-dir`, `APERTURE_STATE_DIR`), absolute. */
  stateDir?: string;
  /**
   * How `loaded` was loaded, for reloads to read the same file the same way. Default: the file
   * `loaded` came from, relative paths against its directory.
   */
  reloadFrom?: LoadConfigOptions;
  /**
   * False: this gateway will not serve HTTP (`serve --stdio`), so nothing could scrape its
   * Prometheus metrics, and they are not built (prom-client is not even loaded); the search index
   * is built just after start rather than before the client's first requests. Default true.
   */
  http?: boolean;
}

/** What `/readyz` answers, each part from the feature that holds it. */
export interface GatewayReadiness {
  /** Every source was tried (or `startup.waitMs` is over) and the shared state, if any, answers. */
  ready: boolean;
  tools: number;
  search: { strategy: string; vectors?: SemanticStatus; learnedQueries?: QueryMemoryStatus };
  sources: SourceStatus[];
  trust?: TrustReadiness;
  state?: SharedStateReadiness;
}

/**
 * The composition root: a façade over the ordered feature list (`features/index.ts`). `create`
 * makes every feature in list order and starts them in that order; `close` closes them in reverse.
 */
export class Gateway {
  readonly catalog: Catalog;
  /** The whole catalog: the scope of unconfined callers (stdio, CLI, auth off). */
  readonly scope: ToolScope;
  /** The configured toolsets and the scope of every caller (`resolve`). */
  readonly toolsets: ToolsetRegistry;
  /** Code mode, when enabled in the config. */
  readonly code: CodeExecutor | undefined;
  /** Flat tool names (prefix rules and collisions), shared by every session. */
  readonly naming: FlatNaming;
  /** The recent tool calls, for the console's live log. */
  readonly activity: ActivityFeed;
  /** Trust on first use and quarantine of downstream tools; undefined with `trust.mode: off`. */
  readonly trust: TrustParts | undefined;
  /** A fresh MCP server per client session (never one shared across clients). */
  readonly createSession: McpSessionFactory;
  /** Applies an edited config file without a restart (`reload`). */
  private readonly reloader: ConfigReloader;

  private constructor(
    readonly log: Logger,
    private readonly running: { loaded: LoadedConfig },
    private readonly features: FeatureList,
    private readonly parts: GatewayParts,
    reloadFrom: LoadConfigOptions | undefined,
  ) {
    this.catalog = parts.need('catalog');
    this.scope = parts.need('scope');
    this.toolsets = parts.need('toolsets');
    this.code = parts.need('code');
    this.naming = parts.need('naming');
    this.activity = parts.need('activity');
    this.trust = parts.need('trust');
    this.createSession = parts.need('sessions').create;
    this.reloader = new ConfigReloader({
      current: () => this.running.loaded,
      // Loaded as `config validate` checks it: the same refusals, the same messages.
      load: async () => {
        const from = reloadFrom ?? { file: this.running.loaded.file, cwd: this.running.loaded.baseDir };
        const next = await loadConfig(from);
        assertToolsetReferences(next.config, next.file ?? 'config');
        return next;
      },
      appliers: features.appliers(),
      inert: ['$schema', 'inputs'],
      commit: (next) => {
        this.running.loaded = next;
        // Secrets of the new config are masked from now on; the old ones stay masked too.
        parts.gateway.maskSecrets.add(next.secretValues ?? []);
      },
      log: log.child({ component: 'reload' }),
    });
  }

  /**
   * Builds a gateway: makes and starts every feature (local sources publish before this
   * settles, remote ones start in the background). Throws `config_invalid` for unusable modules;
   * whatever was made by then is closed.
   */
  static async create(options: GatewayOptions): Promise<Gateway> {
    const { loaded, log } = options;
    assertToolsetReferences(loaded.config, loaded.file ?? 'config');
    const running = { loaded };
    let gateway: Gateway | undefined;
    const parts = new GatewayParts({
      log,
      loaded: () => running.loaded,
      maskSecrets: growingMasker(loaded.secretValues ?? []),
      calls: new InFlightCalls(),
      validator: new SchemaValidator(),
      // Only reachable once serving, after `create`.
      reload: (trigger) =>
        gateway?.reload(trigger) ?? Promise.reject(new GatewayError('internal', 'starting')),
      readiness: () => features.readiness(),
      options: { ...options, http: options.http !== false },
    });
    const features = await FeatureList.create(FEATURES, loaded.config, parts);
    gateway = new Gateway(log, running, features, parts, options.reloadFrom);
    await features.start();
    return gateway;
  }

  get config() {
    return this.running.loaded.config;
  }

  /** Rate limits, result cache, retries and circuit breakers in force (each absent when off). */
  get policies(): CallPolicies {
    return this.parts.need('policies').current;
  }

  /** The config file the gateway runs on; undefined when it runs on the defaults. */
  get configFile(): string | undefined {
    return this.running.loaded.file;
  }

  /** The override files the running config read (`overrides` naming files or folders). */
  get overrideFiles(): readonly string[] {
    return this.running.loaded.overrideFiles ?? [];
  }

  /**
   * Reads the config file again and applies what changed without a restart (each feature applies
   * its own sections: `Feature.reload`). A config that does not load is refused whole:
   * `config_invalid`, logged once, and the running config stays.
   */
  reload(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    return this.reloader.reload(trigger);
  }

  /** The configured skills, when there are any. */
  get skills(): SkillCatalog | undefined {
    return this.parts.need('skills').current;
  }

  /** Settles once every remote source has been tried, however long that takes. */
  async whenReady(): Promise<void> {
    await this.parts.need('remote').ready;
  }

  /**
   * Settles once every remote source has been tried, or `startup.waitMs` after start: what stdio's
   * `initialize` and the one-shot commands wait for, so that their first answers hold the
   * downstream tools.
   */
  async whenStarted(): Promise<void> {
    await this.parts.need('remote').started;
  }

  /** What `/readyz` answers: ready once every source was tried (or `startup.waitMs` is over). */
  readiness(): GatewayReadiness {
    // The features' parts, typed here: `sources`, `catalog`, `search` always report theirs.
    return this.features.readiness() as unknown as GatewayReadiness;
  }

  /** The supervised downstream MCP servers, in config order. */
  get downstream(): readonly DownstreamServer[] {
    return this.parts.need('remote').servers;
  }

  /** Reconnects the downstream MCP server `name` now (the console's button); `not_found` if none. */
  reconnect(name: string): Promise<void> {
    return reconnectServer(this.parts.need('remote'), name);
  }

  /** Serves MCP over stdin/stdout until stdin closes. Nothing but protocol is written to stdout. */
  async serveStdio(): Promise<void> {
    // `initialize` is answered only once the downstream servers had their first try (bounded by
    // startup.waitMs): a client's first tools/list, or a one-shot tools/call, must find their tools.
    await this.whenStarted();
    await serveStdio(this.createSession, this.scope, this.log, () => this.catalog.size);
  }

  /** Starts the HTTP server (MCP, REST, A2A, health) on host:port; port 0 picks a free port. */
  serveHttp(host: string, port: number): Promise<HttpListener> {
    return this.parts.need('http').listen(host, port);
  }

  /**
   * The first half of a graceful shutdown (SIGTERM): stops accepting connections, refuses new
   * calls, lets the calls in flight finish for up to `graceMs`, answers the rest with a clean
   * `backend_unavailable`, and waits (briefly) for those answers to be written. `close()` follows.
   */
  async drain(graceMs: number): Promise<{ finished: number; cut: number }> {
    const http = this.parts.need('http');
    http.stopAccepting();
    // A call waiting on a 2026-07-28 client's next round has no one to answer it now.
    const endedRounds = this.parts.need('sessions').inputRounds.endWaiting();
    const outcome = await this.parts.gateway.calls.drain(graceMs);
    await http.answered(2000);
    this.log.info({ ...outcome, endedRounds }, 'in-flight calls drained');
    return outcome;
  }

  /** Closes every feature in reverse list order (HTTP first, observability last). */
  async close(): Promise<void> {
    this.catalog.flush();
    await this.features.close();
  }
}
