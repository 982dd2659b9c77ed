import { z } from 'zod';
import { SANDBOX_POOL_DEFAULTS } from '../execution/code/pool-options.js';
import { DEFAULT_SANDBOX_LIMITS } from '../execution/code/sandbox-limits.js';
import { RUN_PIPELINE_DEFAULTS } from '../execution/run-pipeline.js';
import { TOKEN_ENCODINGS } from '../foundation/ports/token-counter.js';
import { isRecord } from '../foundation/util/is-record.js';
import { REDACT_DEFAULTS } from '../operations/observe/redact-args.js';
import {
  DEFAULT_HEARTBEAT_MS,
  DEFAULT_MAX_SESSIONS_PER_IDENTITY,
  DEFAULT_SESSION_IDLE_MS,
} from '../surfaces/mcp/http-session-defaults.js';
import { a2aSection } from './a2a-schema.js';
import { authSection, toolsetsSection } from './access-schema.js';
import { approvalsSection, auditSection } from './approvals-schema.js';
import { overridesSection } from './overrides-schema.js';
import { cacheSection, rateLimitsSection, resilienceSection } from './policies-schema.js';
import { policiesSection } from './policy-rules-schema.js';
import { registriesSection } from './registries-schema.js';
import { sandboxSection } from './sandbox-schema.js';
import {
  bool,
  coerceBool,
  httpUrl,
  int,
  looseObject,
  nonEmptyString,
  stringMap,
} from './schema-primitives.js';
import { searchSection, stateSection } from './search-schema.js';
import { skillsSection } from './skills-schema.js';
import { joinSourceSections, SOURCE_FIELDS } from './source-sections.js';
import { trustSection } from './trust-schema.js';

export type {
  ParsedServerEntry,
  RemoteServerConfig,
  ServerConfig,
  StdioServerConfig,
} from '../sources/mcp/server-entry-schema.js';
export type { ToolOverrideConfig } from './overrides-schema.js';

/*
 * The schema of aperture.yaml / aperture.json (docs/DESIGN.md §4). Every object is strict: a typo is an
 * error naming the key, never a silently ignored setting. Every default is applied here, so
 * `ApertureConfig` (the parsed output) is complete and consumers never re-apply fallbacks; a value
 * a component also falls back to is exported by that component and imported here, written once.
 * The value primitives are in `schema-primitives.ts`; the source sections (`servers`, `openapi`,
 * `agents`) come from the source drivers (`source-sections.ts`), the others from their `*-schema.ts`.
 */

const serverSection = z
  .strictObject({
    name: nonEmptyString()
      .default('aperture')
      .describe("The gateway's name: the MCP server name clients see and the OpenAPI and A2A card title."),
    host: nonEmptyString()
      .default('127.0.0.1')
      .describe(
        'The address the HTTP listener binds. A loopback address keeps the gateway to the local user; any other needs `auth`.',
      ),
    port: int(0, 65535).default(8080).describe('The HTTP port (0: any free port).'),
  })
  .prefault({});

/** An allowed CORS origin: `*` or exactly `scheme://host[:port]`; a trailing path would never match. */
function isCorsOrigin(value: string): boolean {
  if (value === '*') return true;
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}

const httpSection = z
  .strictObject({
    cors: z
      .strictObject({
        origins: z
          .array(
            z.string().refine(isCorsOrigin, {
              error:
                'must be "*" or an origin such as "https://app.example.com" (no path, no trailing slash)',
            }),
          )
          .default([])
          .describe('Allowed origins, each `*` or exactly `scheme://host[:port]`; none by default.'),
      })
      .prefault({})
      .describe('Cross-origin requests from browsers: the origins allowed to call the HTTP API.'),
    maxBodyBytes: int(1)
      .default(4_194_304)
      .describe('Larger request bodies are refused with `payload_too_large` (413).'),
    sessionIdleMs: int(1)
      .default(DEFAULT_SESSION_IDLE_MS)
      .describe('MCP sessions with no request for this long are closed (a client that left without DELETE).'),
    maxSessionsPerIdentity: int(1)
      .default(DEFAULT_MAX_SESSIONS_PER_IDENTITY)
      .describe(
        'Open MCP sessions (Streamable HTTP and legacy SSE) one identity may hold on this process; past it a new session is refused with `rate_limited` (429, `details.retryAfterMs`: when one of its idle sessions expires) and none of its open sessions is closed to make room. Without auth every client is the one anonymous identity.',
      ),
    cacheHintMaxTtlMs: int(0)
      .default(300_000)
      .describe(
        'The longest a 2026-07-28 client is told it may cache `tools/list` and `server/discover` (`ttlMs`: half of how long the catalog has held, up to this); 0 never.',
      ),
    heartbeatMs: int(0)
      .default(DEFAULT_HEARTBEAT_MS)
      .describe(
        "A keep-alive comment goes down every long-lived MCP event stream (a 2025 session's GET stream and its calls' streams, 2026-07-28 `subscriptions/listen`, legacy `/sse`) this often, so proxies and clients do not take a quiet stream for a dead one; 0 never.",
      ),
    allowedHosts: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/, {
            error: 'must be a host name such as "aperture.internal" (no scheme, port or wildcard)',
          }),
      )
      .default([])
      .describe(
        'Host names (besides loopback literals and `localhost`) the gateway answers to, e.g. the name a reverse proxy forwards; every other Host/Origin gets 403 (DNS-rebinding protection).',
      ),
    maxConnections: int(1)
      .default(1024)
      .describe('Open connections at most; past it new connections are closed at once.'),
    maxConnectionsPerAddress: int(1)
      .default(128)
      .describe(
        'Open connections one client address may hold until a request on them authenticates (with auth configured) — one unauthenticated client cannot use up `maxConnections`. Loopback clients count too when auth is configured; without auth, every client is capped — except on a loopback bind without auth, where every peer is the local user and only `maxConnections` applies (`perAddressCap`).',
      ),
    headersTimeoutMs: int(1000, 60_000)
      .default(10_000)
      .describe('A client must send the request headers within this time (slow-header attacks).'),
    requestTimeoutMs: int(1000, 300_000)
      .default(30_000)
      .describe('A client must send the whole request (headers and body) within this time.'),
    keepAliveTimeoutMs: int(1000, 3_600_000)
      .default(65_000)
      .describe('An idle keep-alive connection is closed after this time.'),
  })
  .prefault({});

const standardToolsSchema = z
  .strictObject({
    fs: z
      .strictObject({
        root: nonEmptyString().describe(
          "The folder every file tool is confined to; a relative path is taken from the config file's folder.",
        ),
        write: bool().default(false).describe('true: `std:write_file` is served as well.'),
      })
      .optional()
      .describe(
        '`std:read_file`, `std:list_dir` (and `std:write_file` with `write: true`), confined to `root`.',
      ),
    fetch: z
      .strictObject({
        allow: z
          .array(nonEmptyString())
          .min(1)
          .optional()
          .describe('Hosts that may be fetched (`example.com`, `*.example.com`); absent: any public host.'),
        allowPrivateNetwork: bool()
          .default(false)
          .describe('Allow fetching private and loopback addresses (refused by the SSRF guard otherwise).'),
        maxBytes: int(1, 64 * 1024 * 1024)
          .default(1024 * 1024)
          .describe('Longer answers are cut to this many bytes.'),
        timeoutMs: int(100, 120_000).default(10_000).describe('Each fetch fails after this long.'),
        contentTypes: z
          .array(nonEmptyString())
          .min(1)
          .optional()
          .describe('Content types that may be fetched; absent: text, JSON, XML and HTML.'),
      })
      .optional()
      .describe('`std:fetch`, through the SSRF guard.'),
  })
  .describe(
    '`tools.standard` (docs/STANDARD-TOOLS.md): file and web tools with guards; each part off unless set.',
  );

const toolsSection = z
  .strictObject({
    builtin: bool()
      .default(true)
      .describe('Serve the built-in tools (`plantuml:*`, `time:*`, `json:query`, `text:stats`).'),
    modules: z
      .array(nonEmptyString())
      .default([])
      .describe(
        'Your own tool modules (TypeScript or JavaScript files, globs), relative to the config file.',
      ),
    standard: standardToolsSchema.optional(),
  })
  .prefault({});

const EXPOSURE_MODES = ['metatools', 'flat', 'auto'] as const;

const exposureSection = z
  .preprocess(
    // The short form `exposure: flat` is the common case; normalise it to the object form.
    (value) => (typeof value === 'string' ? { mode: value } : value),
    z.strictObject({
      mode: z
        .enum(EXPOSURE_MODES)
        .default('auto')
        .describe(
          'How tools reach an MCP client: `metatools` (search, describe, run), `flat` (every tool listed), or `auto` (the metatools, plus every tool listed flat while that costs the model fewer tokens). A string is short for `{ mode }`.',
        ),
      budgetTokens: int(1)
        .optional()
        .describe(
          "In `auto` mode, an explicit budget: tools are listed directly while their `tools/list` entries cost at most this many tokens. Unset: auto lists them while that costs less than the metatools plus a typical task's search and describe answers.",
        ),
      encoding: z
        .enum(TOKEN_ENCODINGS)
        .default('o200k_base')
        .describe('The tokenizer `auto` counts with (loaded at start in `auto` mode only).'),
      pinned: z
        .array(nonEmptyString())
        .default([])
        .describe(
          "Ids or globs of tools listed directly beside the metatools (`metatools` and `auto` modes): the few an agent should never have to search for. In `auto` they count on the metatools' side.",
        ),
      connectorTools: bool()
        .default(false)
        .describe('Also serve `search` and `fetch` in the shape ChatGPT connectors require.'),
    }),
  )
  .prefault({});

const startupSection = z
  .strictObject({
    waitMs: int(0, 600_000)
      .default(10_000)
      .describe('Longest wait for the first tries, in ms (0: do not wait).'),
  })
  .prefault({})
  .describe(
    "Start-up (docs/DESIGN.md §7): how long stdio's `initialize`, `/readyz` and the one-shot commands wait for every remote source's first try. A source still not up then is logged and joins later.",
  );

const consoleSection = z
  .strictObject({
    enabled: bool()
      .optional()
      .describe('Serve the console at `/`; default: true when the gateway binds a loopback address.'),
  })
  .prefault({})
  .describe(
    'The web console at `/` (docs/DESIGN.md §7). Absent `enabled`: on for loopback binds, off otherwise — a console on a public address is opted into, never a surprise.',
  );

const executionSection = z
  .strictObject({
    timeoutMs: int(1)
      .default(RUN_PIPELINE_DEFAULTS.defaultTimeoutMs)
      .describe("Default per-call timeout; a server's `timeoutMs` overrides it for its tools."),
    maxChainSteps: int(1, 100).default(20).describe('Most steps one `run_chain` may have.'),
    maxResultBytes: int(1)
      .default(RUN_PIPELINE_DEFAULTS.maxResultBytes)
      .describe('Larger tool results are refused with `payload_too_large`.'),
  })
  .prefault({})
  .describe('Limits of the run pipeline (not in docs/DESIGN.md §4; every value has a safe default).');

const codeLimits = (timeoutMs: number, maxToolCalls: number, memoryMb: number) =>
  z
    .strictObject({
      timeoutMs: int(1).default(timeoutMs).describe('A program is stopped after this long.'),
      maxToolCalls: int(0).default(maxToolCalls).describe('Tool calls one program may make.'),
      memoryMb: int(8, 4096).default(memoryMb).describe('Memory one program may use, in MB.'),
    })
    .prefault({});

const codeModeSection = z
  .strictObject({
    enabled: bool().default(true).describe('Serve `execute_code` and `code_api` (code mode).'),
    runtime: z
      .enum(['quickjs', 'process'])
      .default('quickjs')
      .describe(
        '`quickjs`: a WebAssembly engine in worker threads; `process`: a separate Node process per run.',
      ),
    poolSize: int(1, 64)
      .default(SANDBOX_POOL_DEFAULTS.poolSize)
      .describe('Programs running at once; more wait in a queue of `maxQueue`.'),
    maxQueue: int(0)
      .default(SANDBOX_POOL_DEFAULTS.maxQueue)
      .describe('Programs waiting for a free runtime at most; more are refused with `rate_limited`.'),
    maxRunsPerProcess: int(1, 100_000)
      .default(SANDBOX_POOL_DEFAULTS.maxRunsPerProcess)
      .describe(
        '`process` runtime: runs one process serves before it is replaced (1 = a fresh process per run).',
      ),
    defaults: codeLimits(
      DEFAULT_SANDBOX_LIMITS.timeoutMs,
      DEFAULT_SANDBOX_LIMITS.maxToolCalls,
      DEFAULT_SANDBOX_LIMITS.memoryMb,
    ).describe('Used when a call does not say.'),
    maxima: codeLimits(120_000, 1000, 512).describe(
      'The most a call may ask for; more is `validation_input`.',
    ),
    maxLogBytes: int(1)
      .default(DEFAULT_SANDBOX_LIMITS.maxLogBytes)
      .describe('Console output a program may write; the rest is cut.'),
    maxResultBytes: int(1)
      .default(DEFAULT_SANDBOX_LIMITS.maxResultBytes)
      .describe('Larger program results are refused with `payload_too_large`.'),
  })
  .prefault({})
  .describe('Code mode (`execute_code`): the sandbox runtime, its pool, and the limits callers may ask for.');

/** `key: false` / `key: true` as the short form of `key: { enabled: … }`. */
function enabledShorthand(value: unknown): unknown {
  const coerced = coerceBool(value);
  return typeof coerced === 'boolean' ? { enabled: coerced } : value;
}

const shutdownSection = z
  .strictObject({
    graceMs: int(0)
      .default(10_000)
      .describe('How long in-flight calls get to finish on SIGTERM / SIGINT, in ms.'),
  })
  .prefault({})
  .describe(
    'SIGTERM / SIGINT: in-flight calls get this long to finish; the rest are answered with an error.',
  );

const observabilitySection = z
  .strictObject({
    logLevel: z
      .enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
      .default('info')
      .describe('The lowest level logged on stderr.'),
    callLogs: z
      .preprocess(
        enabledShorthand,
        z.strictObject({
          enabled: bool().default(true).describe('Log one line per tool call.'),
          args: bool().default(true).describe('Include the (redacted) arguments.'),
          maxStringLength: int(0, 1_000_000)
            .default(REDACT_DEFAULTS.maxStringLength)
            .describe('Longer argument strings are truncated.'),
        }),
      )
      .prefault({})
      .describe(
        'One info line per tool call: tool, duration, outcome, caller, arguments (credentials redacted).',
      ),
    otlp: z
      .strictObject({
        endpoint: httpUrl()
          .optional()
          .describe(
            "The collector's base URL (`/v1/traces` and `/v1/metrics` are added), or its `/v1/traces` URL.",
          ),
        headers: stringMap()
          .optional()
          .describe('Headers sent with every export (an API key of the collector).'),
        metrics: bool()
          .optional()
          .describe('Also export the metrics (`tool_exec_*`, search, cache, trust, sources). Default false.'),
        metricsIntervalMs: int(100, 3_600_000)
          .optional()
          .describe('How often the metrics are exported. Default 60000.'),
      })
      .optional()
      .describe(
        "Export spans (and, with `metrics: true`, the figures of `/metrics`) over OTLP/HTTP (JSON): `endpoint` is the collector's base URL, or its `/v1/traces` URL. With `exporter: stdout` the same go to standard output as JSON lines and no endpoint is needed.",
      ),
    exporter: z
      .enum(['otlp', 'stdout'])
      .optional()
      .describe(
        '`otlp` (the collector at `otlp.endpoint`, the default) or `stdout` (JSON lines, for local work).',
      ),
    tracing: z
      .strictObject({
        sampleRatio: z
          .number()
          .min(0)
          .max(1)
          .optional()
          .describe(
            'The share of traces recorded, 0 to 1 (default 1); parent-based (a trace is kept or dropped whole).',
          ),
      })
      .optional()
      .describe('How traces are sampled.'),
    metrics: z
      .preprocess(
        enabledShorthand,
        z.strictObject({
          enabled: bool().default(true).describe('Serve `GET /metrics`.'),
          process: bool()
            .default(true)
            .describe("Node process metrics (CPU, memory, event loop, GC) beside the gateway's own."),
          durationBucketsMs: z
            .array(z.number().positive())
            .min(1)
            .refine((b) => b.every((v, i) => i === 0 || v > (b[i - 1] ?? 0)), { error: 'must be ascending' })
            .optional()
            .describe('Bucket bounds of `tool_exec_duration_ms`, ascending.'),
        }),
      )
      .prefault({})
      .describe('Prometheus text at `GET /metrics`; `false` turns it off (404).'),
  })
  .refine((o) => !(o.otlp && o.exporter !== 'stdout' && o.otlp.endpoint === undefined), {
    error: 'otlp.endpoint is required unless exporter is stdout',
    path: ['otlp', 'endpoint'],
  })
  .prefault({});

const configObjectSchema = z.strictObject({
  $schema: z.string().optional().describe("Editors' JSON Schema hint; accepted and dropped."),
  server: serverSection.describe('Where the HTTP listener binds, and the name clients see.'),
  http: httpSection.describe(
    'The HTTP listener: CORS, body size, MCP sessions, allowed host names, connection limits and timeouts.',
  ),
  inputs: z.array(looseObject()).optional().describe(
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own reference syntax, as text
    "VS Code's `.vscode/mcp.json` prompts for `${input:…}`; accepted and ignored (use `${env:…}`/`${secret:…}`).",
  ),
  tools: toolsSection.describe(
    "The gateway's own tools: the built-in ones, your modules, and the standard file and web tools.",
  ),
  /** The source drivers' sections: `servers` (and `mcpServers`), `openapi`, `agents`. */
  ...SOURCE_FIELDS,
  overrides: overridesSection,
  search: searchSection.describe(
    'How `search_tools` ranks: BM25F, optional semantic vectors, failure statistics and learning from use.',
  ),
  exposure: exposureSection.describe(
    'How the catalog reaches MCP clients: through the metatools, listed flat, or `auto` by token cost.',
  ),
  execution: executionSection,
  startup: startupSection,
  console: consoleSection,
  resilience: resilienceSection,
  codeMode: codeModeSection,
  toolsets: toolsetsSection,
  skills: skillsSection,
  auth: authSection,
  a2a: a2aSection,
  cache: cacheSection,
  rateLimits: rateLimitsSection,
  policies: policiesSection.describe('Who may call what with which arguments (docs/POLICY.md).'),
  shutdown: shutdownSection,
  observability: observabilitySection.describe(
    'Logs, per-call log lines, Prometheus metrics, and OpenTelemetry export.',
  ),
  secrets: z
    .strictObject({
      providers: z
        .array(
          z.discriminatedUnion(
            'type',
            [
              z.strictObject({
                type: z
                  .literal('env')
                  .describe(
                    '`env`: the environment variable `<prefix>NAME`; `directory`: the file `<path>/NAME`.',
                  ),
                prefix: z.string().optional().describe('`env`: put before the name of the variable read.'),
              }),
              z.strictObject({
                type: z
                  .literal('directory')
                  .describe('`directory`: the file `<path>/NAME` (Docker / Kubernetes secrets).'),
                path: nonEmptyString().describe(
                  '`directory`: the folder of the secret files, relative to the config file.',
                ),
              }),
            ],
            { error: 'must be one of "env", "directory"' },
          ),
        )
        .default([{ type: 'env' }])
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own reference syntax, as text
        .describe('Where `${secret:NAME}` values come from, asked in order; default the environment.'),
    })
    .prefault({})
    .describe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own reference syntax, as text
      'Where `${secret:NAME}` values come from: providers asked in order, the first that has it wins.',
    ),
  state: stateSection,
  trust: trustSection,
  registries: registriesSection.describe(
    'MCP registries `aperture registry search` / `aperture add` ask, in order (docs/INSTALL.md).',
  ),
  approvals: approvalsSection,
  audit: auditSection,
  sandbox: sandboxSection.describe(
    "OS sandbox of stdio servers and code mode's `process` runtime (docs/SANDBOX.md).",
  ),
});

export const configSchema = z
  .preprocess(
    // `servers:` with every entry commented out is null in YAML; read it as "not set", not as an error.
    (value) =>
      isRecord(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value,
    configObjectSchema,
  )
  .transform((parsed, ctx) => {
    const { $schema: _schema, inputs: _inputs, ...others } = parsed;
    const rest = joinSourceSections(others, ctx);
    const merged = rest.servers;
    // Tokens are kept encrypted or not at all: an OAuth server needs the key that encrypts them.
    const oauthServer = Object.entries(merged).find(([, entry]) => entry.kind === 'remote' && entry.oauth);
    if (oauthServer && rest.state.tokenKey === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['state', 'tokenKey'],
        message: `is required because server "${oauthServer[0]}" uses oauth: the key that encrypts its tokens, e.g. "\${secret:APERTURE_TOKEN_KEY}"`,
      });
    }
    const perUser = Object.entries(merged).find(
      ([, entry]) => entry.kind === 'remote' && entry.oauth?.perUser,
    );
    if (
      perUser &&
      rest.auth.apiKeys.length === 0 &&
      rest.auth.jwt === undefined &&
      rest.auth.introspection === undefined
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['servers', perUser[0], 'oauth', 'perUser'],
        message:
          'needs the gateway to authenticate its callers (auth.apiKeys or auth.jwt): tokens are kept per identity',
      });
    }
    return rest;
  })
  .describe(
    'The whole config file. After parsing, `servers` and `mcpServers` are one `servers` map (a key in both is an error), every server has its `namespace`, and `exposure` is in its object form.',
  );

/** The validated configuration, every default applied. Loaded configs are deep-frozen. */
export type ApertureConfig = z.output<typeof configSchema>;

/**
 * Freezes `value` and everything reachable from it: config is validated once at start, then
 * read-only, so no part can change what another part sees.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/**
 * The configuration of an empty config file (the parse of `{}`), frozen. Parsed `jitless`, like
 * every config: zod otherwise generates and compiles a fast parser per object schema on its first
 * parse, some 10 ms for this schema on every start, for a value parsed once or twice per process.
 */
export const DEFAULT_CONFIG: ApertureConfig = deepFreeze(configSchema.parse({}, { jitless: true }));
