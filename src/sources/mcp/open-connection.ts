import {
  Client,
  type ClientCapabilities,
  type Implementation,
  type OAuthClientProvider,
  type PriorDiscovery,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { bareRpcMessage } from '../../foundation/util/bare-rpc-message.js';
import type { ServerSandboxPlan } from '../sandbox/server-sandbox.js';
import { EraVerdicts, eraVerdicts } from './era-verdicts.js';
import { globalResponseFetch } from './oauth/global-response-fetch.js';
import { type NpxLaunch, npxLaunchOf, type PackageCache, PackageCacheUnusable } from './package-cache.js';
import { acceptingMissingResultType } from './result-type-default.js';
import { sandboxedStart } from './sandboxed-start.js';
import { selfLaunchMarkers } from './self-launch.js';
import { type ProcessExit, StdioProcessTransport } from './stdio-process-transport.js';

/** How to reach one downstream MCP server (the `servers` config entry, already interpolated). */
export type DownstreamTarget =
  | {
      kind: 'stdio';
      command: string;
      args: readonly string[];
      env: Readonly<Record<string, string>>;
      cwd?: string;
      /**
       * The gateway's package cache: an `npx -y pkg` command is started from it, the package
       * installed there first when needed (`package-cache.ts`). Absent: commands run as written.
       */
      packages?: PackageCache;
      /** How the process is confined (`servers.<name>.sandbox`); absent: unconfined. */
      sandbox?: ServerSandboxPlan;
    }
  | {
      kind: 'remote';
      url: string;
      transport: 'streamable-http' | 'sse' | 'auto';
      headers: Readonly<Record<string, string>>;
      /** OAuth for a protected server (`sources/mcp/oauth/`): the SDK asks it for every request's token. */
      authProvider?: OAuthClientProvider;
    };

export interface ConnectOptions {
  clientInfo: Implementation;
  /** Client capabilities advertised to the server (what the gateway can relay for this link). */
  capabilities: ClientCapabilities;
  /** Called on the client before `initialize`, to register request and notification handlers. */
  prepare?: (client: Client) => void;
  /** Server stderr and protocol noise go here. */
  log: Logger;
  /** Gives up on connecting (spawn + initialize) after this long. */
  timeoutMs: number;
  /**
   * Gives up on connecting when aborted (the server is being stopped): the half-started process
   * is stopped with it instead of living on until the timeout.
   */
  signal?: AbortSignal;
  /**
   * Told when a stdio server's process exits on its own — while connecting too, when there is no
   * `Connection` yet to ask (how `doctor` says why a server that died failed).
   */
  onExit?: (exit: ProcessExit) => void;
  /** Given each line a stdio server writes to stderr (it is logged as well). */
  onStderr?: (line: string) => void;
  /**
   * `legacy`: the 2025 handshake (`initialize`) even to a server that speaks both eras, so that
   * it asks its client with the 2025 server-to-client requests on a session (a session link of a
   * 2025 client). Absent: the era is negotiated.
   */
  era?: 'legacy';
}

/** A connected, initialised client and how it is transported. */
export interface Connection {
  client: Client;
  /** `stdio`, `streamable-http` or `sse`: what auto-detection settled on. */
  transport: 'stdio' | 'streamable-http' | 'sse';
  /** The server process's pid (stdio). */
  pid?: number;
  /** The protocol revision negotiated: `2026-07-28` for a modern server, a 2025 one otherwise. */
  protocolVersion?: string;
  close(): Promise<void>;
}

/**
 * Connects and initialises a client. Remote servers in `auto` mode get Streamable HTTP first and
 * legacy SSE when that is refused. Failures are `backend_unavailable` naming the target.
 */
export async function openConnection(target: DownstreamTarget, options: ConnectOptions): Promise<Connection> {
  if (target.kind === 'stdio') {
    const { packages, sandbox, ...spawnable } = target;
    // Installed (or waited for) before the connect clock starts: an install is never cut short.
    // Outside the sandbox: a server with no network still starts from the cache.
    const launch = await launchOf(target, packages, options.signal, options.log);
    // A server that turns out to be this gateway again sees it and refuses (self-launch.ts).
    const env = { ...target.env, ...selfLaunchMarkers() };
    const confined = await sandboxedStart(sandbox, { ...launch, env, ...cwdOf(target) }, options.log);
    const transport = new StdioProcessTransport({
      ...spawnable,
      ...launch,
      env,
      ...confined,
      log: options.log,
      ...(options.onExit ? { onExit: options.onExit } : {}),
      ...(options.onStderr ? { onStderr: options.onStderr } : {}),
    });
    // stdio servers get the 2025 handshake: some exit on any request before `initialize`, and
    // the SDK probes a custom stdio transport in place (no disposable sibling process).
    const client = await initialise(transport, options, target.command, false);
    return {
      client,
      transport: 'stdio',
      ...pidOf(transport),
      ...negotiated(client),
      close: () => client.close(),
    };
  }
  const url = new URL(target.url);
  const requestInit: RequestInit = { headers: { ...target.headers } };
  if (target.transport !== 'sse') {
    try {
      // Era negotiation: `server/discover` first; a 2026-07-28 server is then used statelessly,
      // anything else gets the 2025 `initialize` on the same transport. A verdict from an earlier
      // connection to the same server and credentials is adopted without probing again.
      const key = EraVerdicts.key(target.url, target.headers, target.authProvider !== undefined);
      const connect = (prior?: PriorDiscovery) =>
        initialise(
          acceptingMissingResultType(
            createHttpTransport('streamable-http', url, requestInit, target.authProvider),
            target.url,
            options.log,
          ),
          options,
          target.url,
          true,
          prior,
        );
      if (options.era === 'legacy') {
        // Not remembered as the server's verdict: the server may well speak 2026-07-28 too.
        const client = await connect({ kind: 'legacy' });
        return {
          client,
          transport: 'streamable-http',
          ...negotiated(client),
          close: () => closeHttp(client),
        };
      }
      const prior = eraVerdicts.get(key);
      let client: Client;
      try {
        client = await connect(prior);
      } catch (error) {
        eraVerdicts.forget(key);
        // A remembered verdict may be stale (the server changed era): probe once more.
        if (prior === undefined || options.signal?.aborted) throw error;
        client = await connect();
      }
      eraVerdicts.remember(key, client);
      return { client, transport: 'streamable-http', ...negotiated(client), close: () => closeHttp(client) };
    } catch (error) {
      if (target.transport === 'streamable-http' || !mayBeLegacySse(error)) throw error;
      options.log.info({ err: (error as Error).message }, 'Streamable HTTP refused; trying legacy SSE');
    }
  }
  const client = await initialise(
    createHttpTransport('sse', url, requestInit, target.authProvider),
    options,
    target.url,
    false,
  );
  return { client, transport: 'sse', ...negotiated(client), close: () => client.close() };
}

/**
 * The transport to a remote server. Every HTTP transport to a downstream server is made here, so
 * what all of them need (headers, an OAuth provider) is added in one place.
 */
export function createHttpTransport(
  kind: 'streamable-http' | 'sse',
  url: URL,
  requestInit: RequestInit,
  authProvider?: OAuthClientProvider,
): Transport {
  // The SDK reads token errors with `instanceof Response`, which the gateway's own Response breaks.
  const auth = authProvider ? { authProvider, fetch: globalResponseFetch } : {};
  return kind === 'sse'
    ? new SSEClientTransport(url, { requestInit, ...auth })
    : new StreamableHTTPClientTransport(url, { requestInit, ...auth });
}

/** The command to start: from the package cache for an `npx -y pkg` command, else as written. */
async function launchOf(
  target: { command: string; args: readonly string[] },
  packages: PackageCache | undefined,
  signal: AbortSignal | undefined,
  log: Logger,
): Promise<{ command: string; args: readonly string[] }> {
  const npx: NpxLaunch | undefined = packages ? npxLaunchOf(target.command, target.args) : undefined;
  if (packages === undefined || npx === undefined) return { command: target.command, args: target.args };
  try {
    return await packages.resolve(npx, signal);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    // No place for the cache (a state directory that cannot be created): npx as before.
    if (error instanceof PackageCacheUnusable) {
      log.warn({ package: npx.spec, reason: error.message }, 'no package cache here; running npx as written');
      return { command: target.command, args: target.args };
    }
    const reason = signal?.aborted ? 'stopped while installing' : (error as Error).message;
    throw new GatewayError('backend_unavailable', `cannot start ${npx.spec}: ${reason}`, { cause: error });
  }
}

function cwdOf(target: { cwd?: string }): { cwd?: string } {
  return target.cwd === undefined ? {} : { cwd: target.cwd };
}

function pidOf(transport: StdioProcessTransport): { pid?: number } {
  return transport.pid === undefined ? {} : { pid: transport.pid };
}

function negotiated(client: Client): { protocolVersion?: string } {
  const version = client.getNegotiatedProtocolVersion();
  return version === undefined ? {} : { protocolVersion: version };
}

async function initialise(
  transport: Transport,
  options: ConnectOptions,
  label: string,
  negotiate: boolean,
  prior?: PriorDiscovery,
): Promise<Client> {
  const client = new Client(options.clientInfo, {
    capabilities: options.capabilities,
    ...(negotiate ? { versionNegotiation: { mode: 'auto' as const } } : {}),
  });
  options.prepare?.(client);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout.signal, options.signal]) : timeout.signal;
  try {
    options.signal?.throwIfAborted();
    await client.connect(transport, { timeout: options.timeoutMs, signal, ...(prior ? { prior } : {}) });
    return client;
  } catch (error) {
    await client.close().catch(() => {});
    const failure = toGatewayError(error);
    // A login to do is not an outage: it keeps its code and the command it names.
    if (failure.code === 'auth_required') throw failure;
    const reason = options.signal?.aborted
      ? 'stopped while connecting'
      : timeout.signal.aborted
        ? `no answer to initialize within ${options.timeoutMs} ms`
        : bareRpcMessage(failure.message);
    throw new GatewayError('backend_unavailable', `cannot connect to ${label}: ${reason}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** Ends the HTTP session politely (DELETE) before closing; a server that is gone is not waited for. */
async function closeHttp(client: Client): Promise<void> {
  const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
  await Promise.race([
    transport?.terminateSession?.().catch(() => {}),
    new Promise((resolve) => setTimeout(resolve, 1000).unref()),
  ]);
  await client.close();
}

/** Streamable HTTP failed in a way a legacy SSE server would cause (4xx on the POST), not a dead host. */
function mayBeLegacySse(error: unknown): boolean {
  if (error instanceof SdkHttpError) return error.status >= 400 && error.status < 500;
  const cause = (error as { cause?: unknown }).cause ?? error;
  if (cause instanceof SdkHttpError) return cause.status >= 400 && cause.status < 500;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'number') return code >= 400 && code < 500;
  const message = String((cause as Error).message ?? '');
  return /\b(404|405|400|406)\b/.test(message);
}
