import { z } from 'zod';
import { serverSandboxSchema } from '../../foundation/sandbox/sandbox-schema.js';
import {
  bool,
  coerceScalarToString,
  httpUrl,
  int,
  NAMESPACE_RULE,
  namespaceString,
  nonEmptyString,
  normaliseNamespace,
  stringMap,
} from '../../foundation/schema/config-values.js';
import { didYouMean } from '../../foundation/util/did-you-mean.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { oauthSection } from './oauth/oauth-entry-schema.js';
import { selfLaunchReason } from './self-launch.js';
import { DEFAULT_MAX_CONCURRENT, DEFAULT_QUEUE_MS } from './server-queue-defaults.js';
import { DEFAULT_STARTUP_TIMEOUT_MS } from './startup-timeout.js';

/*
 * The `servers` (and `mcpServers`) section of the config: downstream MCP servers, stdio or remote.
 * Entries written for other MCP clients (Claude Desktop, Cursor, VS Code, Cline, Roo, Windsurf)
 * paste in unchanged: their spellings of keys are accepted and mapped onto ours.
 */

/** Fields shared by stdio and remote server entries. */
const commonServerFields = {
  namespace: namespaceString()
    .optional()
    .describe('Tool namespace of this server; defaults to its key in `servers`.'),
  timeoutMs: int(1)
    .optional()
    .describe(
      "A call to one of this server's tools fails with `timeout` after this long; absent: `execution.timeoutMs`.",
    ),
  // Not defaulted here (a parsed entry keeps only what was written); the driver applies it, and
  // the published JSON schema shows it (DEFAULT_STARTUP_TIMEOUT_MS).
  startupTimeoutMs: int(1, 3_600_000).optional().meta({
    default: DEFAULT_STARTUP_TIMEOUT_MS,
    description:
      'How long starting the server (or reaching a remote one) and its `initialize` may take before the attempt is retried with backoff.',
  }),
  enabled: bool().default(true).describe('false: the server is not started and its tools are not served.'),
  prefix: bool()
    .default(true)
    .describe("false: flat exposure uses the tools' own names instead of `namespace__name`."),
  relistIntervalMs: int(0)
    .default(300_000)
    .describe('Re-list the tools this often when the server does not announce changes (0: never).'),
  maxSessionLinks: int(0)
    .default(8)
    .describe(
      'Connections of single client sessions (clients that can answer sampling, elicitation or roots requests) open at once at most; for a stdio server each is a process. 0: every session shares.',
    ),
  maxConcurrent: int(1, 10_000).optional().meta({
    default: DEFAULT_MAX_CONCURRENT,
    description: 'Calls running on this server at once at most; the others wait in its queue (`queueMs`).',
  }),
  queueMs: int(0, 3_600_000).optional().meta({
    default: DEFAULT_QUEUE_MS,
    description:
      "How long a call waits in the server's queue before `rate_limited` (with `retryAfterMs`); 0: no wait.",
  }),
  trust: z
    .enum(['auto', 'scan', 'manual'], { error: 'must be "auto", "scan" or "manual"' })
    .optional()
    .describe(
      "The trust tier of this server's tools, over `trust.mode`: `auto` served, changes logged; `scan` served when the poisoning detector passes them, else quarantined; `manual` every new or changed tool waits for `aperture trust approve`. Absent: `trust.mode`.",
    ),
  // Keys of other clients' `mcpServers` entries, so their blocks paste in unchanged:
  disabled: bool().optional().describe('Cline / Roo: `disabled: true` is `enabled: false`.'),
  timeout: z
    .preprocess(
      (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value),
      z.number().positive(),
    )
    .optional()
    .describe("Cline / Roo: the call timeout in seconds (Cline's unit); `timeoutMs` is the same in ms."),
  autoApprove: z
    .array(z.string())
    .optional()
    .describe('Cline / Roo: tools to run without asking; accepted and ignored (Aperture never asks).'),
  alwaysAllow: z
    .array(z.string())
    .optional()
    .describe('Roo: the same as `autoApprove`; accepted and ignored.'),
};

/** Maps the other clients' keys onto ours; the router has refused a key given in both spellings. */
function fromClientKeys<
  // `| undefined` on the optional keys: zod's output types say so, and without it `T` stops
  // matching the parsed entry, which collapses the `ServerConfig` union.
  T extends {
    enabled: boolean;
    timeoutMs?: number | undefined;
    disabled?: boolean | undefined;
    timeout?: number | undefined;
  },
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
  type: z
    .literal('stdio')
    .optional()
    .describe("Accepted from other clients' `.mcp.json` files; `command` already makes the server stdio."),
  command: nonEmptyString().describe('The program that starts the server (a stdio server); run with `args`.'),
  args: z
    .array(z.preprocess(coerceScalarToString, z.string()))
    .default([])
    .describe("The command's arguments."),
  env: stringMap().default({}).describe("Environment variables set for the server's process."),
  envFile: nonEmptyString()
    .optional()
    .describe(
      'Cursor / VS Code: a dotenv file whose variables are added to `env` (`env` wins); read when the config is loaded.',
    ),
  cwd: nonEmptyString()
    .optional()
    .describe(
      "The server process's working directory; a relative path is taken from the config file's folder.",
    ),
  sandbox: serverSandboxSchema
    .optional()
    .describe('`off`, `on`, `required` or a profile (docs/SANDBOX.md); default `sandbox.default`.'),
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
  type: z
    .enum(['http', 'streamable-http', 'streamableHttp', 'sse'])
    .optional()
    .describe("Other clients' spelling of `transport` (`http` and `streamableHttp` mean `streamable-http`)."),
  url: httpUrl().describe('The address of a remote server (Windsurf writes `serverUrl`).'),
  transport: z
    .enum(REMOTE_TRANSPORTS)
    .optional()
    .describe(
      '`streamable-http`, `sse`, or `auto` (default): Streamable HTTP, falling back to legacy SSE when the server refuses it.',
    ),
  headers: stringMap().default({}).describe('HTTP headers sent with every request to the server.'),
  oauth: oauthSection
    .optional()
    .describe('OAuth 2.1 login for a protected server; absent: static headers only.'),
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
/** A server entry as its schema gives it, before `namespace` is defaulted. */
export type ParsedServerEntry = z.output<typeof serverEntrySchema>;

/**
 * Routes an entry to the stdio or the remote schema by which of `command` / `url` it has, by
 * adding the `kind` discriminator. A plain union would report both branches' failures at once,
 * which reads as nonsense to a user. Issues raised here stop the pipe before the union runs.
 */
const serverEntrySchema = z.preprocess(
  (given, ctx) => {
    if (!isRecord(given)) {
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
 * nothing usable in it is refused. An entry that would start this gateway itself is refused too.
 */
export const serverRecord = () =>
  z.record(z.string(), serverEntrySchema).superRefine(
    (record, ctx) => {
      if (!isRecord(record)) return;
      for (const [key, entry] of Object.entries(record)) {
        const hasNamespace = isRecord(entry) && typeof entry.namespace === 'string';
        if (!hasNamespace && normaliseNamespace(key) === undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `"${key}" is not a valid namespace (${NAMESPACE_RULE}); rename the key or set "namespace"`,
          });
        }
        // An entry that starts this gateway would recurse without end (self-launch.ts).
        // The refinement also runs over entries that failed: only well-formed commands are read.
        const stdio = entry as { command?: unknown; args?: unknown };
        if (
          isRecord(entry) &&
          typeof stdio.command === 'string' &&
          (stdio.args === undefined ||
            (Array.isArray(stdio.args) && stdio.args.every((arg) => typeof arg === 'string')))
        ) {
          const reason = selfLaunchReason(stdio.command, (stdio.args ?? []) as string[]);
          if (reason !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: [key, 'command'],
              message: `server "${key}" would start this Aperture gateway itself (${reason}), which would start itself again without end; remove this entry`,
            });
          }
        }
      }
    },
    // Run even when an entry failed, so a bad key is reported together with everything else.
    { when: () => true },
  );

/**
 * Joins the `servers` and `mcpServers` sections into one record (a key in both is an error) and
 * gives every entry its `namespace` (default: its key, normalised). Two enabled servers with one
 * namespace are refused.
 */
export function mergeServerSections(
  servers: Record<string, ParsedServerEntry>,
  mcpServers: Record<string, ParsedServerEntry>,
  ctx: z.RefinementCtx,
): Record<string, ServerConfig> {
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
  return merged;
}
