import type { Tool } from '../model/tool.js';
import type { ClientChannel } from './client-channel.js';
import type { Logger } from './logger.js';

/** A progress report, forwarded to the client as `notifications/progress` when it asked for it. */
export interface ProgressUpdate {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

/**
 * Where a call came in: an MCP session (stdio or HTTP), the REST API, the A2A agent, a program
 * in code mode (its inner calls, whichever surface ran the program), a `run_chain` step, a skill's
 * step, or a one-shot command (`aperture run`). Internal: shown in the console's activity log and
 * seen by policy rules (`surface`), never in an answer to a client.
 */
export type CallSurface = 'mcp' | 'rest' | 'a2a' | 'code' | 'chain' | 'skill' | 'cli';

/**
 * How an identity was proven: an API key of `auth.apiKeys`, a JWT's `sub`, or an opaque token an
 * RFC 7662 introspection endpoint called active (`auth.introspection`).
 */
export type AuthMethod = 'api_key' | 'jwt' | 'introspection';

/** Who is calling: the identity and the scope (toolset) the call runs in. */
export interface CallerContext {
  /** Stable identity name (API key name, JWT subject, "local" for stdio). */
  identity: string;
  /**
   * How the identity was proven; absent for unauthenticated surfaces (stdio, CLI, auth off). The
   * same name proven two ways is two callers: key anything per caller by {@link callerKey}.
   */
  authMethod?: AuthMethod;
  /**
   * The toolsets the identity is granted; it is confined to their union. Absent: unconfined (the
   * whole catalog).
   */
  toolsets?: readonly string[];
  /**
   * An administrator (`auth.apiKeys[].admin`): may read operational data across every toolset
   * (`/metrics`, `/readyz` details). Confinement of tool calls is unaffected.
   */
  admin?: boolean;
  /** The toolset the request narrowed to (`/mcp/{toolset}`, `?toolset=`), if any. */
  toolset?: string;
  /** Session id of the surface session, when there is one. */
  sessionId?: string;
  /** The surface the call came in through; set where each surface makes the caller's context. */
  surface?: CallSurface;
  /** A JWT's verified claims (policy rules read them as `caller.claims`); absent for other callers. */
  claims?: Readonly<Record<string, unknown>>;
  /** The `auth.roles` the caller holds (from its API key or a token claim); absent: none. */
  roles?: readonly string[];
}

/**
 * The caller of a request no credential identifies: every HTTP surface with auth off (and the
 * paths auth leaves open). One value, so every surface names the unauthenticated caller alike;
 * frozen, since every request shares it.
 */
export const ANONYMOUS_CALLER: Readonly<CallerContext> = Object.freeze({ identity: 'anonymous' });

/** The client of `serve --stdio`: the local user, unconfined (stdio has no credentials). */
export const LOCAL_CALLER: Readonly<CallerContext> = Object.freeze({ identity: 'local' });

/** The user of a one-shot command (`aperture run`, …): the local user, unconfined. */
export const CLI_CALLER: Readonly<CallerContext> = Object.freeze({ identity: 'cli', surface: 'cli' });

/** What a backend gets with each call. */
export interface ExecutionContext {
  /** Aborted on timeout or cancellation; backends must stop work and settle promptly. */
  signal: AbortSignal;
  /** Unique id of this call (for logs and traces). */
  callId: string;
  caller: CallerContext;
  progress: (update: ProgressUpdate) => void;
  /** The way back to the calling client (MCP sessions only): relays sampling, elicitation, roots. */
  channel?: ClientChannel;
  log: Logger;
}

/**
 * The port every source implements to execute its tools. It returns the raw output (a value, a
 * string, or a full MCP result); the pipeline normalises and validates it.
 */
export interface ToolBackend {
  execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown>;
}

/**
 * What links a caller's searches to its runs (learning from use): the surface session when there
 * is one, else the identity (REST and CLI callers have no session).
 */
export function sessionOf(caller: CallerContext): string {
  return caller.sessionId ?? `identity:${callerKey(caller)}`;
}

/** The prefix {@link callerKey} gives each authentication method. */
const METHOD_PREFIX: Record<AuthMethod, string> = { api_key: 'apikey', jwt: 'jwt', introspection: 'token' };

/**
 * The one key of everything kept per caller (result cache partitions, per-user OAuth token sets,
 * session owners, rate-limit buckets, attribution in logs and the activity feed): the method and
 * the identity, `apikey:ka` or `jwt:ka`. An API key named `ka` and a JWT whose `sub` is `ka` are
 * different callers — an identity provider's subject must never reach what an operator's key owns.
 * Callers no credential proved keep their bare fixed names (`local`, `anonymous`, `cli`, …): none of
 * them contains a method prefix, so they cannot collide with a proven caller either.
 */
export function callerKey(caller: Pick<CallerContext, 'identity' | 'authMethod'>): string {
  return caller.authMethod === undefined
    ? caller.identity
    : `${METHOD_PREFIX[caller.authMethod]}:${caller.identity}`;
}
