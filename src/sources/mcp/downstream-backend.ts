import type { Client, LoggingLevel, RequestOptions } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { type GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import { type ClientChannel, isInputRequired } from '../../foundation/ports/client-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { DownstreamCallObserver } from '../../foundation/ports/operation-observer.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import { callFailure, isSessionLost, restartedDuringCall } from './call-failure.js';
import { CallToolResultCheck } from './call-tool-result-check.js';
import { TASKS_EXTENSION, taskHandleOf } from './downstream-tasks.js';
import { isModern, requestWithRounds } from './modern-requests.js';
import { awaitTask, offersTasks, takesTasks } from './task-awaiting.js';

/** What the backend needs of the rest of the server. */
export interface DownstreamBackendOptions {
  /** The key in `servers`. */
  name: string;
  log: Logger;
  /** Runs `use` with the client the call goes on (`DownstreamRelay.withClient`). */
  withClient: <T>(
    channel: ClientChannel | undefined,
    use: (client: Client) => Promise<T>,
    tool?: string,
  ) => Promise<T>;
  /** The log level the sessions asked for, sent with each request to a 2026-07-28 server. */
  logLevel: () => LoggingLevel | undefined;
  /**
   * The server forgot the session of `client`'s connection (the shared one; undefined: whichever
   * is current): initialises it again now, once however many calls noticed.
   */
  reconnect: (client?: Client) => Promise<void>;
  /** Whether `client`'s connection ended because the server forgot its session (it restarted). Default never. */
  lostSession?: (client: Client) => boolean;
  /** Whether `client` is (or was) the shared connection's, not a session's link. Default yes. */
  isShared?: (client: Client) => boolean;
  /** The outage a failure on `client`'s connection belongs to. */
  incidentOf: (client: Client | undefined) => string;
  /** Told of every `tools/call` sent (spans). Default none. */
  observer?: DownstreamCallObserver;
}

/**
 * Executes a downstream server's catalog tools: `tools/call` on the client the relay picks (a
 * 2026-07-28 server's rounds of input answered or passed on), with failures mapped to gateway
 * errors named after the outage they belong to, and every call told to the observer. When the
 * server forgot the shared connection's session (it restarted), that one connection is initialised
 * again and a call it refused is sent once more; a call that was in flight is sent again only when
 * the tool is read-only or idempotent, and otherwise answers a retryable `backend_unavailable`
 * saying the server restarted. The client's session and the other servers are untouched.
 */
export class DownstreamBackend implements ToolBackend {
  constructor(private readonly options: DownstreamBackendOptions) {}

  async execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const observer = this.options.observer;
    if (!observer) return this.callTool(tool, args, ctx);
    const end = observer.start({
      server: this.options.name,
      tool: tool.origin.originalName,
      callId: ctx.callId,
    });
    try {
      const result = await this.callTool(tool, args, ctx);
      // The request succeeded, but the tool reported a failure: the call failed all the same.
      end((result as { isError?: unknown }).isError === true ? { errorCode: 'execution_failed' } : {});
      return result;
    } catch (error) {
      end({ errorCode: toGatewayError(error).code });
      throw error;
    }
  }

  private async callTool(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const params = { name: tool.origin.originalName, arguments: args };
    let used: Client | undefined;
    const call = (client: Client) => {
      used = client;
      const options: RequestOptions = {
        signal: ctx.signal,
        // The pipeline owns the timeout (and aborts the signal); this is only a backstop.
        timeout: 2_147_483_647,
        onprogress: (progress) => ctx.progress(progress),
      };
      if (isModern(client)) {
        // A caller that cannot take a task still reaches a server's task tools: the gateway
        // declares the extension for it and waits for the task's end (`awaitTask`).
        const awaits = !takesTasks(ctx.channel) && offersTasks(client);
        return requestWithRounds<object>(
          client,
          { method: 'tools/call', params },
          CallToolResultSchema,
          options,
          ctx.channel,
          this.options.logLevel(),
          awaits ? { [TASKS_EXTENSION]: {} } : undefined,
        ).then((result) => {
          // A round passed through travels the pipeline as a result (with no content yet).
          if (isInputRequired(result)) return { content: [], ...result };
          const handle = awaits ? taskHandleOf(result) : undefined;
          return handle ? awaitTask(client, handle, ctx.signal, ctx.channel) : result;
        });
      }
      return client.request({ method: 'tools/call', params }, CallToolResultCheck, options);
    };
    try {
      return await this.options.withClient(ctx.channel, call, tool.origin.originalName);
    } catch (error) {
      const client = used;
      if (ctx.signal.aborted) throw this.failure(error, ctx, used);
      // The shared connection is re-initialised; a session's link that lost its session was
      // dropped by `SessionLinks` (the retry opens a fresh one).
      const shared = client ? (this.options.isShared?.(client) ?? true) : !ctx.channel;
      if (isSessionLost(error)) {
        // The server refused the call itself: it forgot our HTTP session (it restarted). Initialise
        // again and send it once more; the server never saw it, so this is not running it twice.
        if (shared) await this.options.reconnect(client);
        else if (!client) throw this.failure(error, ctx, used);
        return this.retry(call, tool, ctx);
      }
      if (client && this.options.lostSession?.(client)) {
        // In flight when the server restarted: it may have run. Sent again only when that is safe.
        if (shared) await this.options.reconnect(client);
        if (tool.annotations.readOnlyHint === true || tool.annotations.idempotentHint === true) {
          return this.retry(call, tool, ctx);
        }
        throw restartedDuringCall(this.options.name, this.options.incidentOf(client));
      }
      throw this.failure(error, ctx, used);
    }
  }

  /** The one retry after the server's session was lost, on the connection initialised since. */
  private async retry(call: (client: Client) => Promise<unknown>, tool: Tool, ctx: ExecutionContext) {
    let used: Client | undefined;
    try {
      return await this.options.withClient(
        ctx.channel,
        (client) => {
          used = client;
          return call(client);
        },
        tool.origin.originalName,
      );
    } catch (retryError) {
      throw this.failure(retryError, ctx, used);
    }
  }

  private failure(error: unknown, ctx: ExecutionContext, client: Client | undefined): GatewayError {
    return callFailure(error, {
      server: this.options.name,
      signal: ctx.signal,
      incident: () => this.options.incidentOf(client),
    });
  }
}
