import { z } from 'zod';
import { isValidNamespace, isValidToolName } from '../foundation/tool-id.js';
import { authSection, toolsetsSection } from './access-schema.js';
import { normaliseNamespace } from './client-compat.js';
import { didYouMean } from './did-you-mean.js';
import { httpUrl } from './http-url.js';
import { cacheSection, rateLimitsSection, resilienceSection } from './policies-schema.js';
import { searchSection, stateSection } from './search-schema.js';
import { skillsSection } from './skills-schema.js';

/*
 * The schema of aperture.yaml / aperture.json (docs/DESIGN.md §4). Every object is strict: a typo is an
 * error naming the key, never a silently ignored setting. Defaults live here and nowhere else, so
 * `ApertureConfig` (the parsed output) is complete and consumers never re-apply fallbacks.
 *
 * Numbers and booleans also accept their string spelling ("8080", "true"): `${env:PORT}` is
 * interpolated before validation and always yields a string.
 */

const NAMESPACE_RULE =
  'letters, digits, "_", "." or "-", starting with a letter or digit, at most 64 characters';

function coerceBool(value: unknown): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

/** Env values and headers are strings on the wire; `PORT: 3000` in YAML means "3000". */
function coerceScalarToString(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

/** A short description of a config value for messages: `"abc"`, `number 3`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return `${typeof value} ${String(value)}`;
}

function int(min: number, max: number = Number.MAX_SAFE_INTEGER) {
  return z.preprocess((value, ctx) => {
    if (typeof value === 'string' && /^\s*-?\d+\s*$/.test(value)) return Number(value);
    // zod would say "expected number" for "abc"; an integer is what is wanted.
    if (value !== undefined && typeof value !== 'number') {
      ctx.addIssue({ code: 'custom', message: `expected an integer, got ${describeValue(value)}` });
    }
    return value;
  }, z.number().int().min(min).max(max));
}

const bool = () => z.preprocess(coerceBool, z.boolean());
const nonEmptyString = () => z.string().min(1, { error: 'must not be empty' });
const stringMap = () => z.record(z.string(), z.preprocess(coerceScalarToString, z.string()));
const looseObject = () => z.record(z.string(), z.unknown());

const namespaceString = () =>
  z.string().refine(isValidNamespace, { error: `must be a valid namespace (${NAMESPACE_RULE})` });

/** One HTTP service described by an OpenAPI document; each operation becomes a tool. */
const openapiEntrySchema = z.strictObject({
  /** File path (relative to the config file) or http(s) URL of the OpenAPI 3.0/3.1 document. */
  spec: nonEmptyString(),
  namespace: namespaceString(),
  baseUrl: httpUrl().optional(),
  headers: stringMap().optional(),
  include: z.array(z.string()).optional(),
  exclude: z.array(z.string()).optional(),
  timeoutMs: int(1).optional(),
  /** Allow loopback/private/link-local targets (off: an agent must not reach the internal network). */
  allowPrivateNetwork: z.boolean().optional(),
  maxResponseBytes: int(1).optional(),
});

/** A remote A2A agent; each skill of its card becomes a tool `<name>:<skill id>`. */
const agentEntrySchema = z.strictObject({
  url: httpUrl(),
  headers: stringMap().optional(),
  timeoutMs: int(1).optional(),
  allowPrivateNetwork: z.boolean().optional(),
});

const namespaceKey = () =>
  z.string().refine(isValidNamespace, { error: `must be a valid namespace (${NAMESPACE_RULE})` });

const serverSection = z
  .strictObject({
    name: nonEmptyString().default('aperture'),
    host: nonEmptyString().default('127.0.0.1'),
    port: int(0, 65535).default(8080),
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
          .default([]),
      })
      .prefault({}),
    maxBodyBytes: int(1).default(4_194_304),
    /** MCP sessions with no request for this long are closed (a client that left without DELETE). */
    sessionIdleMs: int(1).default(1_800_000),
    /**
     * Host names (besides loopback literals and `localhost`) the gateway answers to, e.g. the name a
     * reverse proxy forwards; every other Host/Origin gets 403 (DNS-rebinding protection).
     */
    allowedHosts: z
      .array(
        z
          .string()
          .regex(/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/, {
            error: 'must be a host name such as "aperture.internal" (no scheme, port or wildcard)',
          }),
      )
      .default([]),
    /** Open connections at most; past it new connections are closed at once. */
    maxConnections: int(1).default(1024),
    /**
     * Open connections one client address may hold until a request on them authenticates (with
     * auth configured) — one unauthenticated client cannot use up `maxConnections`. Loopback
     * clients count too when auth is configured; without auth, every client is capped.
     */
    maxConnectionsPerAddress: int(1).default(128),
    /** A client must send the request headers within this time (slow-header attacks). */
    headersTimeoutMs: int(1000, 60_000).default(10_000),
    /** A client must send the whole request (headers and body) within this time. */
    requestTimeoutMs: int(1000, 300_000).default(30_000),
    /** An idle keep-alive connection is closed after this time. */
    keepAliveTimeoutMs: int(1000, 3_600_000).default(65_000),
  })
  .prefault({});

/** Fields shared by stdio and remote server entries. */
const commonServerFields = {
  /** Tool namespace of this server; defaults to its key in `servers`. */
  namespace: namespaceString().optional(),
  timeoutMs: int(1).optional(),
  enabled: bool().default(true),
  /** false: flat exposure uses the tools' own names instead of `namespace__name`. */
  prefix: bool().default(true),
  /** Re-list the tools this often when the server does not announce changes (0: never). */
  relistIntervalMs: int(0).default(300_000),
  /**
   * Connections of single client sessions (clients that can answer sampling, elicitation or roots
   * requests) open at once at most; for a stdio server each is a process. 0: every session shares.
   */
  maxSessionLinks: int(0).default(8),
  // Keys of other clients' `mcpServers` entries, so their blocks paste in unchanged:
  /** Cline / Roo: `disabled: true` is `enabled: false`. */
  disabled: bool().optional(),
  /** Cline / Roo: the call timeout in seconds (Cline's unit); `timeoutMs` is the same in ms. */
  timeout: z
    .preprocess(
      (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
      z.number().positive(),
    )
    .optional(),
  /** Cline / Roo: tools to run without asking; accepted and ignored (Aperture never asks). */
  autoApprove: z.array(z.string()).optional(),
  /** Roo: the same as `autoApprove`; accepted and ignored. */
  alwaysAllow: z.array(z.string()).optional(),
};

/** Maps the other clients' keys onto ours; the router has refused a key given in both spellings. */
function fromClientKeys<
  T extends { enabled: boolean; timeoutMs?: number | undefined; disabled?: boolean; timeout?: number },
>(entry: T) {
  const {
    disabled,
    timeout,
    autoApprove: _a,
    alwaysAllow: _b,
    ...rest
  } = entry as T & {
    autoApprove?: unknown;
    alwaysAllow?: unknown;
  };
  const timeoutMs = rest.timeoutMs ?? (timeout === undefined ? undefined : Math.round(timeout * 1000));
  return {
    ...rest,
    enabled: disabled === undefined ? rest.enabled : !disabled,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

// `kind` is not written by users: the router below derives it from `command` / `url`.
const stdioEntryObject = z.strictObject({
  kind: z.literal('stdio'),
  // `type` is accepted so that `.mcp.json` files of Claude Code / Cursor / VS Code paste in unchanged.
  type: z.literal('stdio').optional(),
  command: nonEmptyString(),
  args: z.array(z.preprocess(coerceScalarToString, z.string())).default([]),
  env: stringMap().default({}),
  /** Cursor / VS Code: a dotenv file whose variables are added to `env` (`env` wins); read by `loadConfig`. */
  envFile: nonEmptyString().optional(),
  cwd: nonEmptyString().optional(),
  ...commonServerFields,
});
const stdioEntrySchema = stdioEntryObject.transform(({ type: _type, envFile: _envFile, ...entry }) =>
  fromClientKeys(entry),
);

const REMOTE_TRANSPORTS = ['streamable-http', 'sse', 'auto'] as const;
/** `type` spellings used by other MCP clients' config files, mapped to our transport names. */
const REMOTE_TYPES = {
  http: 'streamable-http',
  'streamable-http': 'streamable-http',
  // Cline writes `streamableHttp`.
  streamableHttp: 'streamable-http',
  sse: 'sse',
} as const;

const remoteEntryObject = z.strictObject({
  kind: z.literal('remote'),
  type: z.enum(['http', 'streamable-http', 'streamableHttp', 'sse']).optional(),
  url: httpUrl(),
  transport: z.enum(REMOTE_TRANSPORTS).optional(),
  headers: stringMap().default({}),
  ...commonServerFields,
});
const remoteEntrySchema = remoteEntryObject
  .transform((raw) => fromClientKeys(raw))
  .transform(({ type, transport, ...entry }, ctx) => {
    const fromType = type === undefined ? undefined : REMOTE_TYPES[type];
    if (transport !== undefined && fromType !== undefined && transport !== fromType) {
      ctx.addIssue({
        code: 'custom',
        path: ['transport'],
        message: `conflicts with type "${type}"; set only one of them`,
      });
      return z.NEVER;
    }
    return { ...entry, transport: transport ?? fromType ?? 'auto' };
  });

/** Every key a server entry may have, as users write it (`kind` is internal, `serverUrl` is Windsurf's `url`). */
export const SERVER_ENTRY_KEYS: ReadonlySet<string> = new Set(
  [...Object.keys(stdioEntryObject.shape), ...Object.keys(remoteEntryObject.shape), 'serverUrl'].filter(
    (key) => key !== 'kind',
  ),
);

/** Pairs of keys that mean the same thing in two clients' spellings; an entry may use one of each. */
const SYNONYMS = [
  ['url', 'serverUrl'],
  ['enabled', 'disabled'],
  ['timeoutMs', 'timeout'],
] as const;

/** A stdio server, launched as a child process. */
export type StdioServerConfig = z.output<typeof stdioEntrySchema> & { namespace: string };
/** A remote server reached over Streamable HTTP or SSE. */
export type RemoteServerConfig = z.output<typeof remoteEntrySchema> & { namespace: string };
/** One downstream MCP server, `kind` telling which; `namespace` is always set (default: its key). */
export type ServerConfig = StdioServerConfig | RemoteServerConfig;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Routes an entry to the stdio or the remote schema by which of `command` / `url` it has, by
 * adding the `kind` discriminator. A plain union would report both branches' failures at once,
 * which reads as nonsense to a user. Issues raised here stop the pipe before the union runs.
 */
const serverEntrySchema = z.preprocess(
  (given, ctx) => {
    if (!isPlainObject(given)) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be an object with either "command" (a stdio server) or "url" (a remote server)',
      });
      return given;
    }
    let raw = given;
    if (Object.hasOwn(raw, 'kind')) {
      ctx.addIssue({ code: 'custom', path: ['kind'], message: 'unknown key' });
      return raw;
    }
    for (const [ours, theirs] of SYNONYMS) {
      if (raw[ours] !== undefined && raw[theirs] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [theirs],
          message: `means the same as "${ours}"; set only one of them`,
        });
        return raw;
      }
    }
    if (raw.serverUrl !== undefined) {
      const { serverUrl, ...rest } = raw;
      raw = { ...rest, url: serverUrl };
    }
    const hasCommand = raw.command !== undefined;
    const hasUrl = raw.url !== undefined;
    if (hasCommand && hasUrl) {
      ctx.addIssue({
        code: 'custom',
        message: 'has both "command" and "url"; a server is either stdio (command) or remote (url), not both',
      });
      return raw;
    }
    if (!hasCommand && !hasUrl && raw.type === undefined) {
      // `comand:` is a typo to point at, not a reason to say that "command" is missing.
      const unknown = Object.keys(raw).filter((key) => !SERVER_ENTRY_KEYS.has(key));
      for (const key of unknown) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `unknown key${didYouMean(key, SERVER_ENTRY_KEYS)}`,
        });
      }
      if (unknown.some((key) => didYouMean(key, ['command', 'url', 'serverUrl']) !== '')) return raw;
      ctx.addIssue({
        code: 'custom',
        message: 'needs either "command" (a stdio server) or "url" (a remote server)',
      });
      return raw;
    }
    // Only `type` given: it decides, so the message is "url is required" rather than a guess.
    const remote = hasUrl || (!hasCommand && raw.type !== 'stdio');
    return { ...raw, kind: remote ? 'remote' : 'stdio' };
  },
  z.discriminatedUnion('kind', [stdioEntrySchema, remoteEntrySchema]),
);

/**
 * Server keys become namespaces unless `namespace` says otherwise; keys other clients allow
 * (`"GitHub Tools"`, `"acme/db"`) are normalised (`normaliseNamespace`), so only a key with
 * nothing usable in it is refused.
 */
const serverRecord = () =>
  z.record(z.string(), serverEntrySchema).superRefine(
    (record, ctx) => {
      if (!isPlainObject(record)) return;
      for (const [key, entry] of Object.entries(record)) {
        const hasNamespace = isPlainObject(entry) && typeof entry.namespace === 'string';
        if (!hasNamespace && normaliseNamespace(key) === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `"${key}" is not a valid namespace (${NAMESPACE_RULE}); rename the key or set "namespace"`,
          });
        }
      }
    },
    // Run even when an entry failed, so a bad key is reported together with everything else.
    { when: () => true },
  );

const toolsSection = z
  .strictObject({
    builtin: bool().default(true),
    modules: z.array(nonEmptyString()).default([]),
  })
  .prefault({});

/** `*`, `namespace`, `namespace:tool` or `namespace:tool:version`. */
function isOverrideKey(key: string): boolean {
  if (key === '*') return true;
  const [namespace, ...names] = key.split(':');
  return (
    namespace !== undefined &&
    isValidNamespace(namespace) &&
    names.length <= 2 &&
    names.every(isValidToolName)
  );
}

const overrideSchema = z.strictObject({
  name: z.string().refine(isValidToolName, { error: 'must be a tool name (no spaces or ":")' }).optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  hidden: bool().optional(),
  annotations: z
    .strictObject({
      title: z.string().optional(),
      readOnlyHint: bool().optional(),
      destructiveHint: bool().optional(),
      idempotentHint: bool().optional(),
      openWorldHint: bool().optional(),
    })
    .optional(),
  tags: z.array(z.string()).optional(),
  /** Per-tool call timeout, over the server's `timeoutMs`. */
  timeoutMs: int(1).optional(),
  /** Result caching: true or false over the default (read-only or idempotent tools are cached). */
  cache: bool().optional(),
  args: z
    .strictObject({
      /** Values forced on every call; the caller cannot override them (and does not see them). */
      fixed: looseObject().optional(),
      /** Values used when the caller omits the argument. */
      defaults: looseObject().optional(),
    })
    .optional(),
});

/** Per-tool customisation, keyed `*`, `namespace` or `namespace:tool`. */
export type ToolOverrideConfig = z.output<typeof overrideSchema>;

const EXPOSURE_MODES = ['metatools', 'flat', 'auto'] as const;

const exposureSection = z
  .preprocess(
    // The short form `exposure: flat` is the common case; normalise it to the object form.
    (value) => (typeof value === 'string' ? { mode: value } : value),
    z.strictObject({
      mode: z.enum(EXPOSURE_MODES).default('auto'),
      /** In `auto` mode, tools are exposed directly while the visible catalog's estimated size stays within this. */
      budgetTokens: int(1).default(3000),
      /** Also serve `search` and `fetch` in the shape ChatGPT connectors require. */
      connectorTools: bool().default(false),
    }),
  )
  .prefault({});

/**
 * Start-up (docs/DESIGN.md §7): how long stdio's `initialize`, `/readyz` and the one-shot commands wait
 * for every remote source's first try. A source still not up then is logged and joins later.
 */
const startupSection = z
  .strictObject({
    /** Longest wait for the first tries, in ms (0: do not wait). */
    waitMs: int(0, 600_000).default(10_000),
  })
  .prefault({});

/** Limits of the run pipeline (not in docs/DESIGN.md §4; every value has a safe default). */
const executionSection = z
  .strictObject({
    /** Default per-call timeout; a server's `timeoutMs` overrides it for its tools. */
    timeoutMs: int(1).default(60_000),
    /** Most steps one `run_chain` may have. */
    maxChainSteps: int(1, 100).default(20),
    /** Larger tool results are refused with `payload_too_large`. */
    maxResultBytes: int(1).default(16_777_216),
  })
  .prefault({});

const codeLimits = (timeoutMs: number, maxToolCalls: number, memoryMb: number) =>
  z
    .strictObject({
      timeoutMs: int(1).default(timeoutMs),
      maxToolCalls: int(0).default(maxToolCalls),
      memoryMb: int(8, 4096).default(memoryMb),
    })
    .prefault({});

/** Code mode (`execute_code`): the sandbox runtime, its pool, and the limits callers may ask for. */
const codeModeSection = z
  .strictObject({
    enabled: z.boolean().default(true),
    /** `quickjs`: a WebAssembly engine in worker threads; `process`: a separate Node process per run. */
    runtime: z.enum(['quickjs', 'process']).default('quickjs'),
    /** Programs running at once; more wait in a queue of `maxQueue`. */
    poolSize: int(1, 64).default(2),
    maxQueue: int(0).default(64),
    /** `process` runtime: runs one process serves before it is replaced (1 = a fresh process per run). */
    maxRunsPerProcess: int(1, 100_000).default(1),
    /** Used when a call does not say. */
    defaults: codeLimits(30_000, 100, 64),
    /** The most a call may ask for; more is `validation_input`. */
    maxima: codeLimits(120_000, 1000, 512),
    maxLogBytes: int(1).default(65_536),
    maxResultBytes: int(1).default(1_048_576),
  })
  .prefault({});

/** `key: false` / `key: true` as the short form of `key: { enabled: … }`. */
function enabledShorthand(value: unknown): unknown {
  const coerced = coerceBool(value);
  return typeof coerced === 'boolean' ? { enabled: coerced } : value;
}

/** SIGTERM / SIGINT: in-flight calls get this long to finish; the rest are answered with an error. */
const shutdownSection = z
  .strictObject({
    graceMs: int(0).default(10_000),
  })
  .prefault({});

const observabilitySection = z
  .strictObject({
    logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
    /** One info line per tool call: tool, duration, outcome, caller, arguments (credentials redacted). */
    callLogs: z
      .preprocess(
        enabledShorthand,
        z.strictObject({
          enabled: bool().default(true),
          /** Include the (redacted) arguments. */
          args: bool().default(true),
          /** Longer argument strings are truncated. */
          maxStringLength: int(0, 1_000_000).default(256),
        }),
      )
      .prefault({}),
    /** Export spans over OTLP/HTTP (JSON): `endpoint` is the collector's base URL or its `/v1/traces` URL. */
    otlp: z
      .strictObject({
        endpoint: httpUrl(),
        headers: stringMap().optional(),
      })
      .optional(),
    /** Prometheus text at `GET /metrics`; `false` turns it off (404). */
    metrics: z
      .preprocess(
        enabledShorthand,
        z.strictObject({
          enabled: bool().default(true),
          /** Node process metrics (CPU, memory, event loop, GC) beside the gateway's own. */
          process: bool().default(true),
          /** Bucket bounds of `tool_exec_duration_ms`, ascending. */
          durationBucketsMs: z
            .array(z.number().positive())
            .min(1)
            .refine((b) => b.every((v, i) => i === 0 || v > (b[i - 1] ?? 0)), { error: 'must be ascending' })
            .optional(),
        }),
      )
      .prefault({}),
  })
  .prefault({});

const configObjectSchema = z.strictObject({
  /** Editors' JSON Schema hint; accepted and dropped. */
  $schema: z.string().optional(),
  server: serverSection,
  http: httpSection,
  servers: serverRecord().optional(),
  mcpServers: serverRecord().optional(),
  /** VS Code's `.vscode/mcp.json` prompts for `${input:…}`; accepted and ignored (use `${env:…}`/`${secret:…}`). */
  inputs: z.array(looseObject()).optional(),
  tools: toolsSection,
  // Sections below are validated loosely until their features land.
  openapi: z.array(openapiEntrySchema).default([]),
  agents: z.record(namespaceKey(), agentEntrySchema).default({}),
  overrides: z
    .record(
      z.string().refine(isOverrideKey, { error: 'must be "*", "namespace" or "namespace:tool"' }),
      overrideSchema,
    )
    .default({}),
  search: searchSection,
  exposure: exposureSection,
  execution: executionSection,
  startup: startupSection,
  resilience: resilienceSection,
  codeMode: codeModeSection,
  toolsets: toolsetsSection,
  skills: skillsSection,
  auth: authSection,
  cache: cacheSection,
  rateLimits: rateLimitsSection,
  shutdown: shutdownSection,
  observability: observabilitySection,
  /** Where `${secret:NAME}` values come from: providers asked in order, the first that has it wins. */
  secrets: z
    .strictObject({
      providers: z
        .array(
          z.discriminatedUnion(
            'type',
            [
              /** Env variable `<prefix>NAME`. */
              z.strictObject({ type: z.literal('env'), prefix: z.string().optional() }),
              /** File `<path>/NAME` (Docker / Kubernetes secrets); `path` relative to the config file. */
              z.strictObject({ type: z.literal('directory'), path: nonEmptyString() }),
            ],
            { error: 'must be one of "env", "directory"' },
          ),
        )
        .default([{ type: 'env' }]),
    })
    .prefault({}),
  state: stateSection,
});

/**
 * The whole config file. After parsing, `servers` and `mcpServers` are one `servers` map (a key in
 * both is an error), every server has its `namespace`, and `exposure` is in its object form.
 */
export const configSchema = z
  .preprocess(
    // `servers:` with every entry commented out is null in YAML; read it as "not set", not as an error.
    (value) =>
      isPlainObject(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null)) : value,
    configObjectSchema,
  )
  .transform((parsed, ctx) => {
    const { $schema: _schema, inputs: _inputs, servers = {}, mcpServers = {}, ...rest } = parsed;
    const merged: Record<string, ServerConfig> = {};
    for (const [section, record] of [
      ['servers', servers],
      ['mcpServers', mcpServers],
    ] as const) {
      for (const [key, entry] of Object.entries(record)) {
        if (Object.hasOwn(merged, key)) {
          ctx.addIssue({
            code: 'custom',
            path: [section, key],
            message: `server "${key}" is defined in both "servers" and "mcpServers"; keep one`,
          });
          continue;
        }
        // The superRefine above has refused keys that do not normalise, so the fallback is never used.
        merged[key] = { ...entry, namespace: entry.namespace ?? normaliseNamespace(key) ?? key };
      }
    }
    // Two enabled servers with one namespace would produce colliding tool ids.
    const owners = new Map<string, string>();
    for (const [key, entry] of Object.entries(merged)) {
      if (!entry.enabled) continue;
      const owner = owners.get(entry.namespace);
      if (owner !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [Object.hasOwn(servers, key) ? 'servers' : 'mcpServers', key],
          message: `namespace "${entry.namespace}" is already used by server "${owner}"; set a distinct "namespace"`,
        });
      } else {
        owners.set(entry.namespace, key);
      }
    }
    return { ...rest, servers: merged };
  });

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

/** The configuration of an empty config file (the parse of `{}`), frozen. */
export const DEFAULT_CONFIG: ApertureConfig = deepFreeze(configSchema.parse({}));
