import { attachSource } from '../catalog/attach-source.js';
import { Catalog } from '../catalog/catalog.js';
import { InMemorySource } from '../catalog/in-memory-source.js';
import { ToolOverrides } from '../catalog/tool-overrides.js';
import type { TrustCounters } from '../catalog/trust/trust-gate.js';
import type { CodeExecutor } from '../composition/code/code-executor.js';
import { createSearchStack } from '../composition/search-stack.js';
import { SkillCatalog } from '../composition/skills/skill-catalog.js';
import { type ScopeDeps, ToolScope } from '../composition/tool-scope.js';
import { ToolsetRegistry } from '../composition/toolsets/toolset-registry.js';
import { assertToolsetReferences } from '../config/access-schema.js';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from '../config/load-config.js';
import type { QueryMemoryStatus } from '../discovery/query-memory.js';
import type { SemanticStatus } from '../discovery/semantic-index.js';
import type { RunMiddleware } from '../execution/run-middleware.js';
import { RunPipeline } from '../execution/run-pipeline.js';
import { GatewayError } from '../foundation/gateway-error.js';
import { InFlightCalls } from '../foundation/in-flight-calls.js';
import type { Logger } from '../foundation/logger.js';
import { SchemaValidator } from '../foundation/schema-validator.js';
import type { StateStore } from '../foundation/state-store.js';
import { loadTokenCounter, type TokenCounter } from '../foundation/token-counter.js';
import type { CallerContext } from '../foundation/tool-backend.js';
import type { Authenticator } from '../operations/auth/authenticator.js';
import { ActivityFeed } from '../operations/observe/activity-feed.js';
import { createObservability, type Observability } from '../operations/observe/create-observability.js';
import { type GrowingMasker, growingMasker } from '../operations/secrets/growing-masker.js';
import { maskStrings } from '../operations/secrets/secret-masker.js';
import { builtinSource } from '../sources/builtin/builtin-source.js';
import type { DownstreamServer } from '../sources/mcp/downstream-server.js';
import { CatalogCacheHints } from '../surfaces/mcp/cache-hints.js';
import { connectorTools } from '../surfaces/mcp/connector-tools.js';
import type { ExposureCache } from '../surfaces/mcp/exposure.js';
import { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import { InputRounds } from '../surfaces/mcp/input-rounds.js';
import { createMcpSessionServer } from '../surfaces/mcp/mcp-session-server.js';
import type { PassthroughServer } from '../surfaces/mcp/passthrough.js';
import type { McpSessionFactory } from '../surfaces/mcp/session-factory.js';
import { StdioServerTransport } from '../surfaces/mcp/stdio-server-transport.js';
import { consoleParts } from './admin-parts.js';
import { type CallPolicies, callPolicies, swappableMiddlewares } from './call-policies.js';
import { codeMode } from './code-mode.js';
import { ConfigReloader, type ReloadOutcome, type ReloadTrigger } from './config-reloader.js';
import { type HttpListener, HttpServer } from './http-server.js';
import { authenticatorOf, liveAppliers } from './live-reload.js';
import { LiveSearch } from './live-search.js';
import { loadLocalTools } from './local-tools.js';
import { OAuthSupport } from './oauth-support.js';
import { observabilityOptions } from './observability-options.js';
import { PACKAGE_INFO } from './package-info.js';
import { RemoteSources, type SourceStatus } from './remote-sources.js';
import { openSearchBacking, type SearchBacking } from './search-parts.js';
import { SharedState, type SharedStateReadiness } from './shared-state.js';
import { TrustParts, type TrustReadiness } from './trust-parts.js';

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

/**
 * How long a stdio-only gateway waits before it builds the search index: past a client's
 * `initialize` and first `tools/list` (some 20 ms of indexing no longer delay them).
 */
const STDIO_INDEX_DELAY_MS = 250;

/** The identity of whoever reaches an unauthenticated surface (auth comes with its own issue). */
const LOCAL_CALLER: CallerContext = { identity: 'local' };

/**
 * The composition root: config → catalog (built-in and module tools) → search, pipeline, scope →
 * surfaces. The only place that wires parts together.
 */
export class Gateway {
  readonly catalog: Catalog;
  /** The whole catalog: the scope of unconfined callers (stdio, CLI, auth off). */
  readonly scope: ToolScope;
  /** The configured toolsets and the scope of every caller (`resolve`). */
  readonly toolsets: ToolsetRegistry;
  /** Verifies credentials; undefined when `auth` configures none (every surface is open). */
  private authenticator: Authenticator | undefined;
  /** Applies an edited config file without a restart (`reload`). */
  private readonly reloader: ConfigReloader;
  readonly log: Logger;
  /** Rate limits, result cache, retries and circuit breakers (each absent when off); a reload swaps them. */
  private readonly policyHolder: { current: CallPolicies };
  /** Search with its feedback loop (failures, learned queries) and, for hybrid, its vectors; a reload may rebuild it. */
  private readonly liveSearch: LiveSearch;
  /** Durable state (embeddings, failure statistics, learned queries) and the embedder, if any. */
  private readonly searchBacking: SearchBacking;
  private readonly validator = new SchemaValidator();
  private readonly closers: (() => Promise<void>)[] = [];
  /** The calls in flight on every surface; `drain` waits for them at shutdown. */
  private readonly calls = new InFlightCalls();
  /** HTTP serving: listeners, and their part of a graceful shutdown. */
  private readonly http: HttpServer;
  /** Code mode, when enabled in the config. */
  readonly code: CodeExecutor | undefined;
  /** What exposure `auto` counts tokens with; loaded in `create` in that mode only. */
  private tokenCounter: TokenCounter | undefined;
  /** The encoding `tokenCounter` counts with. */
  private tokenEncoding: string | undefined;
  /** MCP servers, OpenAPI services and A2A agents, loaded in the background. */
  private readonly remote: RemoteSources;
  /** Replaces resolved secret values in text that leaves the gateway (errors, readiness). */
  private readonly maskSecrets: GrowingMasker;
  /** Flat tool names (prefix rules and collisions), shared by every session. */
  readonly naming: FlatNaming;
  /** The recent tool calls, for the console's live log (outermost middleware: it sees every outcome). */
  readonly activity = new ActivityFeed();
  /** The configured skills (tools `skill:<name>`), when there are any. */
  private skillCatalog: SkillCatalog | undefined;
  /** Trust on first use and quarantine of downstream tools; undefined with `trust.mode: off`. */
  readonly trust: TrustParts | undefined;

  private constructor(
    private loaded: LoadedConfig,
    log: Logger,
    private readonly options: Pick<GatewayOptions, 'stateDir' | 'reloadFrom'> & {
      observability: Observability;
      policies: { current: CallPolicies };
      remote: RemoteSources;
      maskSecrets: GrowingMasker;
      oauth: OAuthSupport;
      /** State shared with other gateways in Redis (`state.driver: redis`). */
      shared: SharedState | undefined;
    },
  ) {
    const { config } = loaded;
    this.maskSecrets = options.maskSecrets;
    this.remote = options.remote;
    this.log = log;
    this.searchBacking = openSearchBacking(config, loaded.baseDir, {
      ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
      ...(options.shared ? { state: options.shared.store } : {}),
      log: log.child({ component: 'state' }),
    });
    this.trust = TrustParts.create(config.trust, this.searchBacking.state, log.child({ component: 'trust' }));
    this.catalog = new Catalog({
      overrides: new ToolOverrides(config.overrides),
      ...(this.trust ? { gate: this.trust.gate } : {}),
    });
    this.cacheHints = new CatalogCacheHints(this.catalog, { maxTtlMs: config.http.cacheHintMaxTtlMs });
    const servers = Object.values(config.servers).filter((s) => s.enabled);
    this.naming = new FlatNaming({
      unprefixed: new Set(servers.filter((s) => !s.prefix).map((s) => s.namespace)),
      order: servers.map((s) => s.namespace),
      log: log.child({ component: 'exposure' }),
    });
    const observability = options.observability;
    const { embedder } = this.searchBacking;
    // OAuth tokens live (encrypted) in the same state store; servers connect only after this.
    options.oauth.bind(this.searchBacking.state);
    // A shared token set just logged in: connect now rather than at the next backoff retry.
    options.oauth.onLoggedIn = (server, identity) => {
      if (identity === '') void this.reconnect(server).catch(() => {});
    };
    this.liveSearch = new LiveSearch(
      (settings) =>
        createSearchStack({
          catalog: this.catalog,
          settings,
          store: this.searchBacking.state,
          ...(embedder ? { embedder } : {}),
          ...(observability.search ? { observer: observability.search } : {}),
          log: log.child({ component: 'search' }),
        }),
      config.search,
      embedder !== undefined,
    );
    const search = this.liveSearch.stack.search;
    // Outermost first: observability, search feedback (failures, learning from use), then rate
    // limits, cache, retries, circuit breaking.
    const middlewares: RunMiddleware[] = [this.activity.middleware];
    if (observability.middleware) middlewares.push(observability.middleware);
    middlewares.push(this.liveSearch.feedback);
    this.policyHolder = options.policies;
    middlewares.push(swappableMiddlewares(() => this.policyHolder.current.middlewares));
    // Innermost: a per-user server's request must carry the caller's token, whatever retried it.
    const asCaller = options.oauth.middleware();
    if (asCaller) middlewares.push(asCaller);
    const pipeline = new RunPipeline({
      catalog: this.catalog,
      calls: this.calls,
      middlewares,
      validator: this.validator,
      defaultTimeoutMs: config.execution.timeoutMs,
      maxResultBytes: config.execution.maxResultBytes,
      maskText: this.maskSecrets,
      // A confined caller runs only members of its toolsets, whatever path reached the pipeline.
      authorizer: { authorize: (tool, caller) => this.toolsets.authorize(tool, caller) },
      log: log.child({ component: 'pipeline' }),
    });
    const code = codeMode(config.codeMode);
    if (code) {
      this.closers.push(code.close);
      this.code = code.executor;
    }
    const deps: ScopeDeps = {
      catalog: this.catalog,
      search,
      pipeline,
      maxChainSteps: config.execution.maxChainSteps,
      descriptionChars: config.search.descriptionChars,
      explain: config.search.explain,
    };
    this.scope = new ToolScope(deps);
    this.toolsets = new ToolsetRegistry(deps, config.toolsets, { base: this.scope });
    const authenticator = authenticatorOf(config.auth);
    this.authenticator = authenticator.enabled ? authenticator : undefined;
    this.reloader = new ConfigReloader({
      current: () => this.loaded,
      load: () => this.loadAgain(),
      appliers: liveAppliers({
        catalog: this.catalog,
        remote: this.remote,
        naming: this.naming,
        current: () => this.config,
        setAuthenticator: (next) => {
          this.authenticator = next;
        },
        policies: this.policyHolder,
        toolsets: this.toolsets,
        // Sessions opened before the first skill was configured run skills through run_tool only.
        setSearch: (before, after) => this.liveSearch.replace(before, after, deps),
        setExposure: async (exposure) => {
          // New sessions read the exposure from the config committed after this; auto needs the tokenizer.
          if (exposure.mode === 'auto' && this.tokenEncoding !== exposure.encoding) {
            this.tokenCounter = await loadTokenCounter(exposure.encoding, this.countMemory);
            this.tokenEncoding = exposure.encoding;
          }
        },
        setSkills: (definitions) => {
          if (this.skillCatalog) this.skillCatalog.replace(definitions);
          else this.loadSkills(definitions);
        },
        trust: this.trust,
        log,
      }),
      inert: ['$schema', 'inputs'],
      commit: (next) => {
        this.loaded = next;
        // Secrets of the new config are masked from now on; the old ones stay masked too.
        this.maskSecrets.add(next.secretValues ?? []);
      },
      log: log.child({ component: 'reload' }),
    });
    this.http = new HttpServer({
      config,
      surface: {
        scope: this.scope,
        resolveScope: this.toolsets.resolve,
        maxBodyBytes: config.http.maxBodyBytes,
        info: { name: config.server.name, version: PACKAGE_INFO.version },
        // The credentials accepted, as the A2A card and the OpenAPI document declare them.
        ...(this.authenticator
          ? { credentials: { apiKeys: config.auth.apiKeys.length > 0, jwt: config.auth.jwt !== undefined } }
          : {}),
        log,
      },
      createSession: this.createSession,
      // Asked on every request: a reload may have swapped it (new API keys).
      authenticator: this.authenticator
        ? { authenticate: (credentials) => (this.authenticator ?? authenticator).authenticate(credentials) }
        : undefined,
      reload: () => this.reload('api'),
      hasToolset: (name) => this.toolsets.has(name),
      flatName: (tool) => this.naming.nameOf(tool),
      readiness: () => this.readiness(),
      // Any OAuth server: per-user logins and the console's "Log in" complete at the callback.
      ...(options.oauth.enabled
        ? {
            oauthLogin: {
              listening: (url: string) => options.oauth.listening(url),
              complete: (url: URL) => options.oauth.completeLogin(url),
            },
          }
        : {}),
      ...consoleParts({
        config: () => this.config,
        activity: this.activity,
        naming: this.naming,
        toolsets: this.toolsets,
        code: this.code,
        skills: () => this.skillCatalog,
        tokenCounter: () => this.meterCounter(),
        // The console sees more than /readyz (uptime, stderr lines), masked alike.
        sources: () => maskStrings(this.remote.adminStatuses(), this.maskSecrets),
        circuit: (id) => this.policyHolder.current.breakers?.state(id),
        reconnect: (name) => this.reconnect(name),
        ...(options.oauth.enabled
          ? {
              oauth: {
                perUser: (name: string) => options.oauth.perUserServer(name),
                login: (name: string, identity: string) => options.oauth.startLogin(name, identity),
              },
            }
          : {}),
        maskSecrets: this.maskSecrets,
      }),
      onCatalogChange: (listener) => this.catalog.onChange(listener),
      ...(options.shared ? { a2aTaskStore: options.shared.taskStore.bind(options.shared) } : {}),
      // One Redis connection per gateway: sessions and stream events share the state's.
      ...(options.shared ? { redis: options.shared.connection } : {}),
      ...(observability.metrics ? { metrics: observability.metrics } : {}),
      ...(this.trust ? { trust: this.trust } : {}),
    });
    this.closers.push(() => this.http.close());
  }

  /** Builds a gateway and loads its local sources. Throws `config_invalid` for unusable modules. */
  static async create(options: GatewayOptions): Promise<Gateway> {
    const { loaded, log } = options;
    const { config } = loaded;
    assertToolsetReferences(config, loaded.file ?? 'config');
    // Shared state is loaded before anything reads it (search, trust, OAuth tokens, policies);
    // a Redis that does not answer in time delays start by at most startup.waitMs.
    const shared =
      config.state.driver === 'redis'
        ? await SharedState.open(config, log, config.startup.waitMs)
        : undefined;
    // What observability reports on is made before it, so nothing refers to a gateway not yet built.
    const policies = { current: callPolicies(config, log, {}, shared?.policies) };
    const maskSecrets = growingMasker(loaded.secretValues ?? []);
    const oauth = new OAuthSupport(config, log);
    const remote = await RemoteSources.create(config, {
      oauth,
      baseDir: loaded.baseDir,
      log,
      ...(options.backoff ? { backoff: options.backoff } : {}),
      ...(options.sessionLinkIdleMs === undefined ? {} : { sessionLinkIdleMs: options.sessionLinkIdleMs }),
      // A server that is back half-opens its circuit at once: reconnecting is not an open circuit.
      onSourceBack: (sourceId) => policies.current.breakers?.recovered(sourceId),
      startupWaitMs: config.startup.waitMs,
    });
    // The trust gate is built with the gateway, after observability: its counters are read late.
    let trustCounters: (() => TrustCounters) | undefined;
    const observed = observabilityOptions(
      config,
      log,
      () => sourceStatuses(remote, maskSecrets),
      () => policies.current.cache?.stats(),
      config.trust.mode === 'off' ? undefined : () => trustCounters?.(),
    );
    const observability = await createObservability(
      options.http === false ? { ...observed, metrics: false } : observed,
    );
    const gateway = new Gateway(loaded, log, {
      ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
      ...(options.reloadFrom ? { reloadFrom: options.reloadFrom } : {}),
      observability,
      policies,
      remote,
      maskSecrets,
      oauth,
      shared,
    });
    const trust = gateway.trust;
    trustCounters = trust ? () => trust.counters() : undefined;
    // The tokenizer's tables are a few MB: loaded on the first count that neither the shipped nor
    // the remembered counts answer, and only when auto needs them.
    if (config.exposure.mode === 'auto') {
      gateway.tokenCounter = await loadTokenCounter(config.exposure.encoding, gateway.countMemory);
      gateway.tokenEncoding = config.exposure.encoding;
    }
    await gateway.loadSources();
    // Each gateway has its own downstream connections: what one hears, the others act on.
    shared?.fanOut(() => gateway.remote.servers, gateway.catalog);
    if (trust) {
      trust.watch(gateway.catalog);
      gateway.closers.push(async () => trust.close());
    }
    gateway.loadSkills();
    gateway.catalog.flush();
    // Build the search index now rather than on the first query. Serving stdio only, the client's
    // first requests (initialize, tools/list) need no index: it is built just after, and a search
    // that comes first builds it itself.
    if (options.http === false) {
      const indexing = setTimeout(() => {
        try {
          gateway.liveSearch.stack.search.refresh();
        } catch (error) {
          // The next search tries again; a timer must not end the process.
          log.warn({ err: error instanceof Error ? error.message : String(error) }, 'search index not built');
        }
      }, STDIO_INDEX_DELAY_MS);
      indexing.unref();
      gateway.closers.push(async () => clearTimeout(indexing));
    } else {
      gateway.liveSearch.stack.search.refresh();
    }
    return gateway;
  }

  get config() {
    return this.loaded.config;
  }

  /** Rate limits, result cache, retries and circuit breakers in force (each absent when off). */
  get policies(): CallPolicies {
    return this.policyHolder.current;
  }

  /** The config file the gateway runs on; undefined when it runs on the defaults. */
  get configFile(): string | undefined {
    return this.loaded.file;
  }

  /** The override files the running config read (`overrides` naming files or folders). */
  get overrideFiles(): readonly string[] {
    return this.loaded.overrideFiles ?? [];
  }

  /**
   * Reads the config file again and applies what changed without a restart (see `live-reload.ts`
   * for what applies live). A config that does not load is refused whole: `config_invalid`, logged
   * once, and the running config stays.
   */
  reload(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    return this.reloader.reload(trigger);
  }

  /** Loads the config as `config validate` checks it: the same refusals, the same messages. */
  private async loadAgain(): Promise<LoadedConfig> {
    const from = this.options.reloadFrom ?? { file: this.loaded.file, cwd: this.loaded.baseDir };
    const next = await loadConfig(from);
    assertToolsetReferences(next.config, next.file ?? 'config');
    return next;
  }

  /**
   * Local sources (built-in tools, tool modules) publish now, before the gateway serves; remote
   * ones start in the background. Every one is wired the same way (`attachSource`).
   */
  private async loadSources(): Promise<void> {
    const { config } = this.loaded;
    const local: InMemorySource[] = [];
    if (config.tools.builtin) local.push(builtinSource());
    const modules = await loadLocalTools(this.loaded);
    for (const module of modules)
      local.push(new InMemorySource(module.sourceId, module.kind, module.entries));
    for (const source of local) await attachSource(this.catalog, source, this.log);
    this.log.info({ tools: this.catalog.size, modules: modules.length }, 'catalog loaded');
    this.remote.start(this.catalog, this.options.observability.downstream);
    this.closers.push(() => this.remote.close());
  }

  /**
   * Registers the configured skills as tools `skill:<name>`, after the local sources so their
   * annotations start from the tools known now (they follow later catalog changes).
   */
  private loadSkills(definitions = this.config.skills): void {
    if (definitions.length === 0) return;
    const skills = new SkillCatalog({
      catalog: this.catalog,
      skills: definitions,
      scopeFor: (caller) => this.scopeOfCaller(caller),
      validator: this.validator,
      log: this.log.child({ component: 'skills' }),
    });
    skills.attach();
    this.closers.push(async () => skills.close());
    this.skillCatalog = skills;
  }

  /** The configured skills, when there are any. */
  get skills(): SkillCatalog | undefined {
    return this.skillCatalog;
  }

  /**
   * The scope a caller's calls run in, for backends that get only the caller (a skill tool runs
   * its steps here): the same rule the surfaces use to pick a session's or request's scope.
   */
  private scopeOfCaller(caller: CallerContext): ToolScope {
    return this.toolsets.resolve({
      caller,
      ...(caller.toolset !== undefined ? { toolset: caller.toolset } : {}),
    });
  }

  /** Settles once every remote source has been tried, however long that takes. */
  async whenReady(): Promise<void> {
    await this.remote.ready;
  }

  /**
   * Settles once every remote source has been tried, or `startup.waitMs` after start: what stdio's
   * `initialize` and the one-shot commands wait for, so that their first answers hold the
   * downstream tools.
   */
  async whenStarted(): Promise<void> {
    await this.remote.started;
  }

  /** What `/readyz` answers: ready once every source was tried (or `startup.waitMs` is over). */
  readiness(): {
    ready: boolean;
    tools: number;
    search: { strategy: string; vectors?: SemanticStatus; learnedQueries?: QueryMemoryStatus };
    sources: SourceStatus[];
    trust?: TrustReadiness;
    state?: SharedStateReadiness;
  } {
    const { semantic, memory, search } = this.liveSearch.stack;
    // A gateway that lost its shared state is not ready: the balancer sends its traffic to the
    // others (it still serves what comes, from memory). The reason is in `state.reason`.
    const state = this.options.shared?.readiness();
    return {
      ready: this.remote.startupOver && (state === undefined || state.state === 'up'),
      tools: this.catalog.size,
      // Vectors are not a readiness condition: search answers with BM25 until they are ready.
      search: {
        strategy: search.strategy,
        ...(semantic ? { vectors: maskStrings(semantic.status(), this.maskSecrets) } : {}),
        ...(memory ? { learnedQueries: maskStrings(memory.status(), this.maskSecrets) } : {}),
      },
      sources: sourceStatuses(this.remote, this.maskSecrets),
      // Quarantined tools do not make the gateway unready: everything else still serves.
      ...(this.trust ? { trust: this.trust.readiness() } : {}),
      ...(state ? { state: maskStrings(state, this.maskSecrets) } : {}),
    };
  }

  /**
   * A fresh MCP server per client session (docs/DESIGN.md: never share one across clients), serving
   * the session's scope to its caller.
   */
  readonly createSession: McpSessionFactory = ({ caller, scope }) =>
    createMcpSessionServer({
      scope,
      ...(this.code ? { code: this.code } : {}),
      catalog: this.catalog,
      validator: this.validator,
      exposure: { ...this.config.exposure, counter: this.tokenCounter },
      serverInfo: { name: this.config.server.name, version: PACKAGE_INFO.version },
      caller,
      ...(this.toolsets.size > 0 ? { toolsets: this.toolsets.viewFor(caller) } : {}),
      // Toolsets scope tools; downstream resources and prompts are relayed to unconfined sessions only.
      ...(scope === this.scope ? { passthrough: this.passthrough() } : {}),
      naming: this.naming,
      maskText: this.maskSecrets,
      ...(this.skillCatalog ? { skills: this.skillCatalog } : {}),
      ...(this.config.exposure.connectorTools ? { extraTools: connectorTools(() => this.http.baseUrl) } : {}),
      calls: this.calls,
      inputRounds: this.inputRounds,
      cacheHints: this.cacheHints,
      exposureCache: this.exposureCache,
      log: this.sessionLog(),
    });

  /** One child logger for every session: a 2026-07-28 request makes a session server of its own. */
  private sessionLog(): Logger {
    this.mcpLog ??= this.log.child({ component: 'mcp' });
    return this.mcpLog;
  }

  private mcpLog: Logger | undefined;

  /** Exposure views by scope, shared by every session (2026-07-28 requests each have one). */
  private readonly exposureCache: ExposureCache = new WeakMap();

  /** Input rounds of 2026-07-28 clients: one for every session, as each round is a request. */
  private readonly inputRounds = new InputRounds();

  /** Caching hints of the 2026-07-28 results that follow the catalog. */
  private readonly cacheHints: CatalogCacheHints;

  /** Downstream MCP servers with their prefix setting, for flat exposure's passthrough. */
  private passthrough(): PassthroughServer[] {
    const servers = this.config.servers;
    return this.remote.servers.map((server) => ({
      server,
      prefix: servers[server.name]?.prefix !== false,
    }));
  }

  /** The supervised downstream MCP servers, in config order. */
  get downstream(): readonly DownstreamServer[] {
    return this.remote.servers;
  }

  /**
   * The tokenizer the console's token meter counts with: `auto`'s own when it loaded one for the
   * configured encoding, else loaded once on first use (a few MB: only when someone looks).
   */
  private async meterCounter(): Promise<TokenCounter | undefined> {
    const { encoding } = this.config.exposure;
    if (this.tokenCounter && this.tokenEncoding === encoding) return this.tokenCounter;
    if (this.meter?.encoding !== encoding) {
      this.meter = { encoding, counter: loadTokenCounter(encoding, this.countMemory).catch(() => undefined) };
    }
    return this.meter.counter;
  }

  private meter: { encoding: string; counter: Promise<TokenCounter | undefined> } | undefined;

  /** Token counts are remembered in the state store: a restart on the same catalog needs no tokenizer. */
  private get countMemory(): { store: StateStore } {
    return { store: this.searchBacking.state };
  }

  /** Reconnects the downstream MCP server `name` now (the console's button); `not_found` if none. */
  async reconnect(name: string): Promise<void> {
    const server = this.remote.servers.find((candidate) => candidate.name === name);
    if (!server) throw new GatewayError('not_found', `No downstream MCP server named "${name}"`);
    await server.reconnect();
  }

  /** Serves MCP over stdin/stdout until stdin closes. Nothing but protocol is written to stdout. */
  async serveStdio(): Promise<void> {
    // stdio serves the local user, unconfined.
    // `initialize` is answered only once the downstream servers had their first try (bounded by
    // startup.waitMs): a client's first tools/list, or a one-shot tools/call, must find their
    // tools. Until the transport starts nobody reads stdin, so the client's messages wait in the
    // pipe meanwhile; none is lost.
    await this.whenStarted();
    const { server, dispose } = this.createSession({ caller: LOCAL_CALLER, scope: this.scope });
    const transport = new StdioServerTransport();
    // Among these: a line from the client that is not a message (answered with an error as well).
    server.onerror = (error) => this.log.warn({ error: error.message }, 'MCP stdio connection error');
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once('end', () => resolve());
    });
    await server.connect(transport);
    this.log.info({ tools: this.catalog.size }, 'serving MCP on stdio');
    await closed;
    dispose();
    await server.close().catch(() => {});
  }

  /** Starts the HTTP server (MCP, REST, A2A, health) on host:port; port 0 picks a free port. */
  serveHttp(host: string, port: number): Promise<HttpListener> {
    return this.http.listen(host, port);
  }

  /**
   * The first half of a graceful shutdown (SIGTERM): stops accepting connections, refuses new
   * calls, lets the calls in flight finish for up to `graceMs`, answers the rest with a clean
   * `backend_unavailable`, and waits (briefly) for those answers to be written. `close()` follows.
   */
  async drain(graceMs: number): Promise<{ finished: number; cut: number }> {
    this.http.stopAccepting();
    // A call waiting on a 2026-07-28 client's next round has no one to answer it now.
    const endedRounds = this.inputRounds.endWaiting();
    const outcome = await this.calls.drain(graceMs);
    await this.http.answered(2000);
    this.log.info({ ...outcome, endedRounds }, 'in-flight calls drained');
    return outcome;
  }

  async close(): Promise<void> {
    this.catalog.flush();
    await Promise.allSettled(this.closers.splice(0).map((close) => close()));
    this.liveSearch.close();
    await this.searchBacking.close();
    // After the search backing: learned queries are written to the shared store on close.
    await this.options.shared?.close();
    // Last: the spans of everything closed above are flushed too.
    await this.options.observability.close();
  }
}

/** Every remote source's state, each string masked: a URL or an error may carry a credential. */
function sourceStatuses(remote: RemoteSources, mask: (text: string) => string): SourceStatus[] {
  return maskStrings(remote.statuses(), mask);
}
