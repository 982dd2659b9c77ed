import type { Client, LoggingLevel, RequestOptions } from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { type GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import { type ClientChannel, isInputRequired } from '../../foundation/ports/client-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { DownstreamCallObserver } from '../../foundation/ports/operation-observer.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import { callFailure, isSessionLost } from './call-failure.js';
import { CallToolResultCheck } from './call-tool-result-check.js';
import { isModern, requestWithRounds } from './modern-requests.js';

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
  /** Initialises the shared connection again now (the server forgot its session). */
  reconnect: () => Promise<void>;
  /** The outage a failure on `client`'s connection belongs to. */
  incidentOf: (client: Client | undefined) => string;
  /** Told of every `tools/call` sent (spans). Default none. */
  observer?: DownstreamCallObserver;
}

/**
 * Executes a downstream server's catalog tools: `tools/call` on the client the relay picks (a
 * 2026-07-28 server's rounds of input answered or passed on), once more after re-initialising when
 * the server forgot the gateway's session, with failures mapped to gateway errors named after
 * the outage they belong to, and every call told to the observer.
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
        return requestWithRounds<object>(
          client,
          { method: 'tools/call', params },
          CallToolResultSchema,
          options,
          ctx.channel,
          this.options.logLevel(),
        ).then((result) =>
          // A round passed through travels the pipeline as a result (with no content yet).
          isInputRequired(result) ? { content: [], ...result } : result,
        );
      }
      return client.request({ method: 'tools/call', params }, CallToolResultCheck, options);
    };
    try {
      return await this.options.withClient(ctx.channel, call, tool.origin.originalName);
    } catch (error) {
      if (isSessionLost(error) && !ctx.signal.aborted && !ctx.channel) {
        // The server forgot our HTTP session (it restarted): initialise again and retry once; the
        // server never saw the call, so running it now is not running it twice.
        this.options.log.info({ server: this.options.name }, 'downstream session lost; re-initialising');
        await this.options.reconnect();
        try {
          return await this.options.withClient(ctx.channel, call, tool.origin.originalName);
        } catch (retryError) {
          throw this.failure(retryError, ctx, used);
        }
      }
      throw this.failure(error, ctx, used);
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
