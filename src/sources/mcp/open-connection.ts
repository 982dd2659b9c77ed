import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, Implementation } from '@modelcontextprotocol/sdk/types.js';
import { bareRpcMessage } from '../../foundation/bare-rpc-message.js';
import { GatewayError, toGatewayError } from '../../foundation/gateway-error.js';
import type { Logger } from '../../foundation/logger.js';
import { globalResponseFetch } from './oauth/global-response-fetch.js';
import { type ProcessExit, StdioProcessTransport } from './stdio-process-transport.js';

/** How to reach one downstream MCP server (the `servers` config entry, already interpolated). */
export type DownstreamTarget =
  | {
      kind: 'stdio';
      command: string;
      args: readonly string[];
      env: Readonly<Record<string, string>>;
      cwd?: string;
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
}

/** A connected, initialised client and how it is transported. */
export interface Connection {
  client: Client;
  /** `stdio`, `streamable-http` or `sse`: what auto-detection settled on. */
  transport: 'stdio' | 'streamable-http' | 'sse';
  /** The server process's pid (stdio). */
  pid?: number;
  close(): Promise<void>;
}

/**
 * Connects and initialises a client. Remote servers in `auto` mode get Streamable HTTP first and
 * legacy SSE when that is refused. Failures are `backend_unavailable` naming the target.
 */
export async function openConnection(target: DownstreamTarget, options: ConnectOptions): Promise<Connection> {
  if (target.kind === 'stdio') {
    const transport = new StdioProcessTransport({
      ...target,
      log: options.log,
      ...(options.onExit ? { onExit: options.onExit } : {}),
    });
    const client = await initialise(transport, options, target.command);
    return { client, transport: 'stdio', ...pidOf(transport), close: () => client.close() };
  }
  const url = new URL(target.url);
  const requestInit: RequestInit = { headers: { ...target.headers } };
  // The SDK reads token errors with `instanceof Response`, which the gateway's own Response breaks.
  const auth = target.authProvider ? { authProvider: target.authProvider, fetch: globalResponseFetch } : {};
  if (target.transport !== 'sse') {
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    try {
      const client = await initialise(
        new StreamableHTTPClientTransport(url, { requestInit, ...auth }),
        options,
        target.url,
      );
      return { client, transport: 'streamable-http', close: () => closeHttp(client) };
    } catch (error) {
      if (target.transport === 'streamable-http' || !mayBeLegacySse(error)) throw error;
      options.log.info({ err: (error as Error).message }, 'Streamable HTTP refused; trying legacy SSE');
    }
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  const client = await initialise(new SSEClientTransport(url, { requestInit, ...auth }), options, target.url);
  return { client, transport: 'sse', close: () => client.close() };
}

function pidOf(transport: StdioProcessTransport): { pid?: number } {
  return transport.pid === undefined ? {} : { pid: transport.pid };
}

async function initialise(transport: Transport, options: ConnectOptions, label: string): Promise<Client> {
  const client = new Client(options.clientInfo, { capabilities: options.capabilities });
  options.prepare?.(client);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout.signal, options.signal]) : timeout.signal;
  try {
    options.signal?.throwIfAborted();
    await client.connect(transport, { timeout: options.timeoutMs, signal });
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
  const cause = (error as { cause?: unknown }).cause ?? error;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'number') return code >= 400 && code < 500;
  const message = String((cause as Error).message ?? '');
  return /\b(404|405|400|406)\b/.test(message);
}
