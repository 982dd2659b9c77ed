import { compile, type JSONValue, TreeInterpreter } from '@jmespath-community/jmespath';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import type { HttpClient, HttpResponse } from '../openapi/http-client.js';
import { isJsonMediaType } from '../openapi/openapi-document.js';
import { readResponse } from '../openapi/response-reader.js';
import type { EndpointRequestPlan } from './endpoint-request.js';

/** Statuses that say the service is not there right now (a gateway or the service itself). */
const UNAVAILABLE = new Set([502, 503, 504]);

/** A compiled JMESPath expression. */
export type Pick = ReturnType<typeof compile>;

/** Compiles `response.pick`; throws `config_invalid` naming the key. */
export function compilePick(expression: string, label: string): Pick {
  try {
    return compile(expression);
  } catch (error) {
    throw new GatewayError(
      'config_invalid',
      `${label}.response.pick: not a JMESPath expression: ${(error as Error).message}`,
      { details: { key: `${label}.response.pick` } },
    );
  }
}

/**
 * Runs one declared endpoint: arguments → request (templates) → the guarded HTTP client (SSRF
 * guard on every hop, redirect policy, time limit) → result. The answer's status decides:
 * 2xx is the result (JSON through `response.pick` when set); 502/503/504 and unreachable services
 * are `backend_unavailable` (retried first for idempotent methods, and a tool's alternative may
 * take over); any other status is `execution_failed` with the status and an excerpt of the body.
 */
export class EndpointBackend implements ToolBackend {
  constructor(
    private readonly plan: EndpointRequestPlan,
    private readonly client: HttpClient,
    private readonly pick: Pick | undefined,
  ) {}

  async execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const request = this.plan.build(args);
    ctx.log.debug(
      { tool: tool.id, method: request.method, url: request.url.origin + request.url.pathname },
      'endpoint call',
    );
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.client.send({ ...request, signal: ctx.signal });
        if (UNAVAILABLE.has(response.status)) throw unavailable(response, request.url);
        return this.read(response);
      } catch (error) {
        if (attempt >= this.plan.retries || !isRetryable(error) || ctx.signal.aborted) throw error;
        await pause(100 * 2 ** attempt, ctx.signal);
      }
    }
  }

  private read(response: HttpResponse): unknown {
    const contentType = response.headers.get('content-type') ?? '';
    const ok = response.status >= 200 && response.status <= 299;
    if (!ok || !isJsonMediaType(contentType) || response.body.byteLength === 0) return readResponse(response);
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(response.body));
    } catch {
      return readResponse(response); // its message for invalid JSON
    }
    if (this.pick) {
      try {
        value = TreeInterpreter.search(this.pick, value as JSONValue);
      } catch (error) {
        throw new GatewayError(
          'execution_failed',
          `response.pick failed on the answer: ${(error as Error).message}`,
        );
      }
    }
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { result: value };
  }
}

function unavailable(response: HttpResponse, url: URL): GatewayError {
  const retryAfter = response.headers.get('retry-after');
  return new GatewayError(
    'backend_unavailable',
    `${url.origin} answered HTTP ${response.status} ${response.statusText}`.trim(),
    { retryable: true, details: { status: response.status, ...(retryAfter ? { retryAfter } : {}) } },
  );
}

function isRetryable(error: unknown): boolean {
  return error instanceof GatewayError && error.code === 'backend_unavailable';
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
