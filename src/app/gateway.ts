import { Catalog } from '../catalog/catalog.js';
import { ToolOverrides } from '../catalog/tool-overrides.js';
import { CodeExecutor } from '../composition/code/code-executor.js';
import { createSearchStack, type SearchStack } from '../composition/search-stack.js';
import { SkillCatalog } from '../composition/skills/skill-catalog.js';
import { ToolScope } from '../composition/tool-scope.js';
import { ToolsetRegistry } from '../composition/toolsets/toolset-registry.js';
import { assertToolsetReferences } from '../config/access-schema.js';
import type { LoadedConfig } from '../config/load-config.js';
import type { QueryMemoryStatus } from '../discovery/query-memory.js';
import type { SemanticStatus } from '../discovery/semantic-index.js';
import { type ToolSearch, usesVectors } from '../discovery/tool-search.js';
import { createChildProcessSandbox } from '../execution/code/child-process-sandbox.js';
import { createQuickJsSandbox } from '../execution/code/quickjs-sandbox.js';
import type { RunMiddleware } from '../execution/run-middleware.js';
import { RunPipeline } from '../execution/run-pipeline.js';
import { InFlightCalls } from '../foundation/in-flight-calls.js';
import type { Logger } from '../foundation/logger.js';
import { SchemaValidator } from '../foundation/schema-validator.js';
import type { StateStore } from '../foundation/state-store.js';
import type { CallerContext } from '../foundation/tool-backend.js';
import { Authenticator } from '../operations/auth/authenticator.js';
import { createObservability, type Observability } from '../operations/observe/create-observability.js';
import { createSecretMasker, maskStrings } from '../operations/secrets/secret-masker.js';
import { builtinTools } from '../sources/builtin/builtin-tools.js';
import { localEntries } from '../sources/local/local-source.js';
import type { DownstreamServer } from '../sources/mcp/downstream-server.js';
import { connectorTools } from '../surfaces/mcp/connector-tools.js';
import { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import { createMcpSessionServer } from '../surfaces/mcp/mcp-session-server.js';
import type { PassthroughServer } from '../surfaces/mcp/passthrough.js';
import type { McpSessionFactory } from '../surfaces/mcp/session-factory.js';
import { type CallPolicies, callPolicies } from './call-policies.js';
import { listenFailure } from './listen-failure.js';
import { loadLocalTools } from './local-tools.js';
import { observabilityOptions } from './observability-options.js';
import { PACKAGE_INFO } from './package-info.js';
import { RemoteSources, type SourceStatus } from './remote-sources.js';
import { configuredEmbedder } from './search-parts.js';
import { openStateStore } from './state-directory.js';

export interface GatewayOptions {
  loaded: LoadedConfig;
  log: Logger;
  /** Reconnection backoff bounds for downstream servers (default 0.5 s to 30 s). */
  backoff?: { minMs?: number; maxMs?: number };
  /** How long a downstream session link with nothing in flight stays open (default 60 s). */
  sessionLinkIdleMs?: number;
  /** The state directory chosen for this run (`--state-dir`, `APERTURE_STATE_DIR`), absolute. */
  stateDir?: string;
}

/** A running HTTP listener. */
export interface HttpListener {
  url: string;
  port: number;
  close(): Promise<void>;
}

const MANIFEST_DESCRIPTION = 'Aperture tool gateway: one catalog of tools from every configured source.';

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
  private readonly authenticator: Authenticator | undefined;
  readonly log: Logger;
  /** Rate limits, result cache, retries and circuit breakers (each absent when off). */
  readonly policies: CallPolicies;
  private readonly search: ToolSearch;
  /** Search with its feedback loop (failures, learned queries) and, for hybrid, its vectors. */
  private readonly searchStack: SearchStack;
  /** Durable state: embeddings, failure statistics, learned queries. */
  private readonly state: StateStore;
  private readonly validator = new SchemaValidator();
  private readonly closers: (() => Promise<void>)[] = [];
  /** The calls in flight on every surface; `drain` waits for them at shutdown. */
  private readonly calls = new InFlightCalls();
  /** Set by `drain`: the HTTP surfaces start nothing new. */
  private draining = false;
  /** HTTP listeners: stop accepting, and wait for the answers being written, at shutdown. */
  private readonly listeners: HttpDrain[] = [];
  /** Code mode, when enabled in the config. */
  readonly code: CodeExecutor | undefined;
  /** MCP servers, OpenAPI services and A2A agents, loaded in the background. */
  private remote: RemoteSources | undefined;
  /** Replaces resolved secret values in text that leaves the gateway (errors, readiness). */
  private readonly maskSecrets: (text: string) => string;
  /** Flat tool names (prefix rules and collisions), shared by every session. */
  readonly naming: FlatNaming;
  /** The base URL of the HTTP listener, once serving. */
  private baseUrl = '';
  /** The configured skills (tools `skill:<name>`), when there are any. */
  private skillCatalog: SkillCatalog | undefined;

  private constructor(
    private readonly loaded: LoadedConfig,
    log: Logger,
    private readonly options: Pick<GatewayOptions, 'backoff' | 'sessionLinkIdleMs' | 'stateDir'> & {
      observability?: Observability;
    } = {},
  ) {
    const { config } = loaded;
    this.maskSecrets = createSecretMasker(loaded.secretValues);
    this.log = log;
    this.catalog = new Catalog({ overrides: new ToolOverrides(config.overrides) });
    const servers = Object.values(config.servers).filter((s) => s.enabled);
    this.naming = new FlatNaming({
      unprefixed: new Set(servers.filter((s) => !s.prefix).map((s) => s.namespace)),
      order: servers.map((s) => s.namespace),
      log: log.child({ component: 'exposure' }),
    });
    const observability = options.observability;
    this.state = openStateStore(config.state, loaded.baseDir, {
      ...(options.stateDir === undefined ? {} : { dir: options.stateDir }),
      log: log.child({ component: 'state' }),
    });
    const searchLog = log.child({ component: 'search' });
    const vectors = usesVectors(config.search.strategy);
    const embedder = vectors ? configuredEmbedder(config.search.embedder, loaded.baseDir) : undefined;
    if (embedder?.close) this.closers.push(() => embedder.close?.() ?? Promise.resolve());
    this.searchStack = createSearchStack({
      catalog: this.catalog,
      settings: config.search,
      store: this.state,
      ...(embedder ? { embedder } : {}),
      ...(observability?.search ? { observer: observability.search } : {}),
      log: searchLog,
    });
    const search = this.searchStack.search;
    this.search = search;
    // Outermost first: observability, search feedback (failures, learning from use), then rate
    // limits, cache, retries, circuit breaking.
    const middlewares: RunMiddleware[] = [];
    if (observability?.middleware) middlewares.push(observability.middleware);
    middlewares.push(this.searchStack.feedback);
    this.policies = callPolicies(config, log);
    middlewares.push(...this.policies.middlewares);
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
    const codeMode = config.codeMode;
    if (codeMode.enabled) {
      const pool = { poolSize: codeMode.poolSize, maxQueue: codeMode.maxQueue };
      const sandbox =
        codeMode.runtime === 'process'
          ? createChildProcessSandbox({ ...pool, maxRunsPerProcess: codeMode.maxRunsPerProcess })
          : createQuickJsSandbox(pool);
      this.closers.push(() => sandbox.close());
      this.code = new CodeExecutor({
        sandbox,
        defaults: codeMode.defaults,
        maxima: codeMode.maxima,
        maxLogBytes: codeMode.maxLogBytes,
        maxResultBytes: codeMode.maxResultBytes,
      });
    }
    const deps = { catalog: this.catalog, search, pipeline, maxChainSteps: config.execution.maxChainSteps };
    this.scope = new ToolScope(deps);
    this.toolsets = new ToolsetRegistry(deps, config.toolsets, { base: this.scope });
    const { apiKeys, jwt } = config.auth;
    const authenticator = new Authenticator({
      apiKeys,
      ...(jwt ? { jwt: { ...jwt, clockToleranceSec: jwt.clockToleranceSec } } : {}),
    });
    this.authenticator = authenticator.enabled ? authenticator : undefined;
  }

  /** Builds a gateway and loads its local sources. Throws `config_invalid` for unusable modules. */
  static async create(options: GatewayOptions): Promise<Gateway> {
    assertToolsetReferences(options.loaded.config, options.loaded.file ?? 'config');
    // Made first (it loads its libraries asynchronously); reads the sources once the gateway exists.
    const self: { gateway?: Gateway } = {};
    const observability = await createObservability(
      observabilityOptions(
        options.loaded.config,
        options.log,
        () => self.gateway?.readiness().sources ?? [],
        () => self.gateway?.policies.cache?.stats(),
      ),
    );
    const gateway = new Gateway(options.loaded, options.log, { ...options, observability });
    self.gateway = gateway;
    await gateway.loadSources();
    gateway.loadSkills();
    gateway.catalog.flush();
    // Build the search index now rather than on the first query.
    gateway.search.refresh();
    return gateway;
  }

  get config() {
    return this.loaded.config;
  }

  private async loadSources(): Promise<void> {
    const { config, baseDir } = this.loaded;
    if (config.tools.builtin) {
      this.catalog.replaceSource('builtin', localEntries('builtin', 'builtin', builtinTools()));
    }
    const modules = await loadLocalTools(this.loaded);
    for (const module of modules) {
      const refused = this.catalog.replaceSource(module.sourceId, module.entries);
      if (refused.length > 0)
        this.log.warn(
          { file: module.file, refused },
          'tool ids already registered; later definitions ignored',
        );
    }
    this.log.info({ tools: this.catalog.size, modules: modules.length }, 'catalog loaded');
    this.remote = new RemoteSources(config, this.catalog, {
      baseDir,
      log: this.log,
      ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
      ...(this.options.sessionLinkIdleMs === undefined
        ? {}
        : { sessionLinkIdleMs: this.options.sessionLinkIdleMs }),
      ...(this.options.observability?.downstream
        ? { downstreamObserver: this.options.observability.downstream }
        : {}),
      // A server that is back half-opens its circuit at once: reconnecting is not an open circuit.
      onSourceBack: (sourceId) => this.policies.breakers?.recovered(sourceId),
      startupWaitMs: config.startup.waitMs,
    });
    const remote = this.remote;
    this.closers.push(() => remote.close());
  }

  /**
   * Registers the configured skills as tools `skill:<name>`, after the local sources so their
   * annotations start from the tools known now (they follow later catalog changes).
   */
  private loadSkills(): void {
    if (this.config.skills.length === 0) return;
    const skills = new SkillCatalog({
      catalog: this.catalog,
      skills: this.config.skills,
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
    await this.remote?.ready;
  }

  /**
   * Settles once every remote source has been tried, or `startup.waitMs` after start: what stdio's
   * `initialize` and the one-shot commands wait for, so that their first answers hold the
   * downstream tools.
   */
  async whenStarted(): Promise<void> {
    await this.remote?.started;
  }

  /** What `/readyz` answers: ready once every source was tried (or `startup.waitMs` is over). */
  readiness(): {
    ready: boolean;
    tools: number;
    search: { strategy: string; vectors?: SemanticStatus; learnedQueries?: QueryMemoryStatus };
    sources: SourceStatus[];
  } {
    const { semantic, memory } = this.searchStack;
    return {
      ready: this.remote?.startupOver ?? true,
      tools: this.catalog.size,
      // Vectors are not a readiness condition: search answers with BM25 until they are ready.
      search: {
        strategy: this.search.strategy,
        ...(semantic ? { vectors: maskStrings(semantic.status(), this.maskSecrets) } : {}),
        ...(memory ? { learnedQueries: maskStrings(memory.status(), this.maskSecrets) } : {}),
      },
      // Every string masked: a source's URL, error or any later field may carry a credential.
      sources: maskStrings(this.remote?.statuses() ?? [], this.maskSecrets),
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
      exposure: this.config.exposure,
      serverInfo: { name: this.config.server.name, version: PACKAGE_INFO.version },
      caller,
      ...(this.toolsets.size > 0 ? { toolsets: this.toolsets.viewFor(caller) } : {}),
      // Toolsets scope tools; downstream resources and prompts are relayed to unconfined sessions only.
      ...(scope === this.scope ? { passthrough: this.passthrough() } : {}),
      naming: this.naming,
      maskText: this.maskSecrets,
      ...(this.skillCatalog ? { skills: this.skillCatalog } : {}),
      ...(this.config.exposure.connectorTools ? { extraTools: connectorTools(() => this.baseUrl) } : {}),
      calls: this.calls,
      log: this.log.child({ component: 'mcp' }),
    });

  /** Downstream MCP servers with their prefix setting, for flat exposure's passthrough. */
  private passthrough(): PassthroughServer[] {
    const servers = this.config.servers;
    return (this.remote?.servers ?? []).map((server) => ({
      server,
      prefix: servers[server.name]?.prefix !== false,
    }));
  }

  /** The supervised downstream MCP servers, in config order. */
  get downstream(): readonly DownstreamServer[] {
    return this.remote?.servers ?? [];
  }

  /** Serves MCP over stdin/stdout until stdin closes. Nothing but protocol is written to stdout. */
  async serveStdio(): Promise<void> {
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    // stdio serves the local user, unconfined.
    // `initialize` is answered only once the downstream servers had their first try (bounded by
    // startup.waitMs): a client's first tools/list, or a one-shot tools/call, must find their
    // tools. Until the transport starts nobody reads stdin, so the client's messages wait in the
    // pipe meanwhile; none is lost.
    await this.whenStarted();
    const { server, dispose } = this.createSession({ caller: LOCAL_CALLER, scope: this.scope });
    const transport = new StdioServerTransport();
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

  /** Starts the HTTP server (MCP, health) on host:port; port 0 picks a free port. */
  async serveHttp(host: string, port: number): Promise<HttpListener> {
    // The HTTP stack is loaded only when HTTP is served (one-shot CLI commands never need it).
    const { createHttpApp } = await import('../surfaces/http/http-app.js');
    const { restRoutes } = await import('../surfaces/rest/rest-routes.js');
    const { lazyA2aRoutes } = await import('../surfaces/a2a/lazy-a2a-routes.js');
    const { manifestRoutes } = await import('../surfaces/http/mcp-manifest.js');
    const { ConnectionGuard } = await import('../surfaces/http/connection-guard.js');
    const { listenHttp, trackAnswers } = await import('../surfaces/http/http-listener.js');
    const http = this.config.http;
    const connections = new ConnectionGuard({
      maxConnections: http.maxConnections,
      maxPerAddress: http.maxConnectionsPerAddress,
      log: this.log.child({ component: 'http' }),
    });
    const info = { name: this.config.server.name, version: PACKAGE_INFO.version };
    let baseUrl = '';
    const resolveScope = this.toolsets.resolve;
    const auth = this.config.auth;
    // The credentials accepted, as the A2A card and the OpenAPI document declare them.
    const accepted = this.authenticator
      ? { auth: { apiKeys: auth.apiKeys.length > 0, jwt: auth.jwt !== undefined } }
      : {};
    const a2a = lazyA2aRoutes({
      scope: this.scope,
      resolveScope,
      ...accepted,
      baseUrl: () => baseUrl,
      info: {
        ...info,
        description: 'Aperture tool gateway: every tool of its catalog, callable by A2A agents.',
      },
      maxBodyBytes: this.config.http.maxBodyBytes,
      log: this.log.child({ component: 'a2a' }),
    });
    this.closers.push(() => a2a.close());
    const { app, close } = createHttpApp({
      createSession: this.createSession,
      resolveScope,
      ...(this.authenticator
        ? {
            auth: {
              authenticator: this.authenticator,
              ...(auth.oauth ? { oauth: auth.oauth } : {}),
              resourceName: this.config.server.name,
              hasToolset: (name: string) => this.toolsets.has(name),
            },
          }
        : {}),
      rest: restRoutes({
        scope: this.scope,
        resolveScope,
        maxBodyBytes: this.config.http.maxBodyBytes,
        info,
        ...accepted,
        policies: { rateLimited: this.config.rateLimits.length > 0 },
      }),
      extra: [
        a2a.app,
        manifestRoutes({
          scope: this.scope,
          resolveScope,
          info: { ...info, description: MANIFEST_DESCRIPTION },
          endpointUrl: () => `${baseUrl}/mcp`,
          flatName: (tool) => this.naming.nameOf(tool),
        }),
      ],
      cors: { origins: http.cors.origins },
      bindHost: host,
      allowedHosts: http.allowedHosts,
      onAuthenticated: (socket) => connections.trust(socket),
      maxBodyBytes: this.config.http.maxBodyBytes,
      sessionIdleMs: this.config.http.sessionIdleMs,
      draining: () => this.draining,
      readiness: () => this.readiness(),
      ...(this.options.observability?.metrics ? { metrics: this.options.observability.metrics } : {}),
      info,
      log: this.log.child({ component: 'http' }),
    });
    const server = await listenHttp(app.fetch, {
      hostname: host,
      port,
      connections,
      headersTimeoutMs: http.headersTimeoutMs,
      requestTimeoutMs: http.requestTimeoutMs,
      keepAliveTimeoutMs: http.keepAliveTimeoutMs,
    }).catch((error: unknown) => {
      throw listenFailure(error, host, port);
    });
    const answering = trackAnswers(server);
    this.listeners.push({
      stopAccepting: () => {
        server.close();
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      },
      answered: answering,
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address ? address.port : port;
    const hostPart = host.includes(':') ? `[${host}]` : host;
    const url = `http://${hostPart}:${actualPort}`;
    baseUrl = url;
    this.baseUrl = url;
    const stop = async () => {
      await close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Streaming responses keep sockets open; end them so close() completes.
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    };
    this.closers.push(stop);
    this.log.info({ url: `${url}/mcp` }, 'serving MCP over HTTP');
    const { isLoopback } = await import('../surfaces/http/host-guard.js');
    if (!this.authenticator && !isLoopback(host)) {
      this.log.warn(
        { host },
        'no auth configured on a non-loopback address: anyone who reaches it can run every tool (see auth in the README)',
      );
    }
    return { url, port: actualPort, close: stop };
  }

  /**
   * The first half of a graceful shutdown (SIGTERM): stops accepting connections, refuses new
   * calls, lets the calls in flight finish for up to `graceMs`, answers the rest with a clean
   * `backend_unavailable`, and waits (briefly) for those answers to be written. `close()` follows.
   */
  async drain(graceMs: number): Promise<{ finished: number; cut: number }> {
    this.draining = true;
    for (const listener of this.listeners) listener.stopAccepting();
    const outcome = await this.calls.drain(graceMs);
    await Promise.all(this.listeners.map((listener) => listener.answered(2000)));
    this.log.info(outcome, 'in-flight calls drained');
    return outcome;
  }

  async close(): Promise<void> {
    this.catalog.flush();
    await Promise.allSettled(this.closers.splice(0).map((close) => close()));
    this.searchStack.close();
    this.state.close();
    // Last: the spans of everything closed above are flushed too.
    await this.options.observability?.close();
  }
}

/** What shutdown needs of one HTTP listener. */
interface HttpDrain {
  stopAccepting(): void;
  /** Resolves when no answer is being written (event streams aside), or after `ms`. */
  answered(ms: number): Promise<void>;
}
