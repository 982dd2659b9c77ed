import { GatewayError } from '../../foundation/model/gateway-error.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import type { NetworkGuard } from '../net/network-guard.js';

/** One outgoing HTTP request. */
export interface HttpRequest {
  url: URL;
  method: string;
  headers: Headers;
  body?: string;
  /** The caller's signal (cancellation, the pipeline's own timeout). */
  signal?: AbortSignal;
}

/** A response whose body has been read in full (up to the size limit). */
export interface HttpResponse {
  status: number;
  statusText: string;
  headers: Headers;
  body: Uint8Array;
}

export interface HttpClientOptions {
  guard: NetworkGuard;
  /** Time limit of one request, body included. */
  timeoutMs: number;
  /** Largest body read; a bigger one fails with `execution_failed`. */
  maxResponseBytes: number;
  /** Header names configured for the source: dropped on a redirect to another origin. */
  credentialHeaders?: readonly string[];
  /** Query parameter names configured for the source (in its base URL): dropped likewise. */
  credentialQuery?: readonly string[];
}

/**
 * The one way an OpenAPI source talks HTTP (calls and spec downloads alike): the network guard
 * on every hop, global `fetch` on the guard's pinned dispatcher, redirects followed by
 * `guardedFetch` (configured credentials never cross to another origin), a time limit covering the body, a
 * bounded body read, and every failure mapped to a GatewayError code:
 * `forbidden` (guard), `timeout`, `cancelled` (or the caller's abort reason),
 * `backend_unavailable` (DNS, connection, TLS), `execution_failed` (body too large).
 */
export class HttpClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly options: HttpClientOptions) {
    this.fetch = guardedFetch({
      guard: options.guard,
      credentialHeaders: options.credentialHeaders ?? [],
      credentialQuery: options.credentialQuery ?? [],
    });
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    const { timeoutMs, maxResponseBytes } = this.options;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const init: RequestInit = { method: request.method, headers: request.headers, signal };
    if (request.body !== undefined) init.body = request.body;
    try {
      const response = await this.fetch(request.url, init);
      const body = await readBody(response, maxResponseBytes);
      return { status: response.status, statusText: response.statusText, headers: response.headers, body };
    } catch (error) {
      throw mapFailure(error, request, timeout, timeoutMs);
    }
  }
}

async function readBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge(maxBytes);
  }
  if (!response.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      // Leaving the loop early cancels the stream and releases the connection.
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError('execution_failed', `The response body is larger than ${maxBytes} bytes`, {
    details: { maxResponseBytes: maxBytes },
  });
}

function mapFailure(
  error: unknown,
  request: HttpRequest,
  timeout: AbortSignal,
  timeoutMs: number,
): GatewayError {
  if (error instanceof GatewayError) return error;
  const target = `${request.method} ${request.url.origin}${request.url.pathname}`;
  if (timeout.aborted) {
    return new GatewayError('timeout', `${target} did not answer within ${timeoutMs} ms`, {
      details: { timeoutMs },
      cause: error,
    });
  }
  if (request.signal?.aborted) {
    const reason: unknown = request.signal.reason;
    return reason instanceof GatewayError
      ? reason
      : new GatewayError('cancelled', 'The call was cancelled', { cause: error });
  }
  // fetch wraps connector failures (the guard's `forbidden` among them) in `TypeError: fetch failed`.
  const inner = causeChain(error).find((e): e is GatewayError => e instanceof GatewayError);
  if (inner) return inner;
  const root = causeChain(error).at(-1);
  const reason = root instanceof Error ? root.message : String(root);
  return new GatewayError('backend_unavailable', `Cannot reach ${request.url.origin}: ${reason}`, {
    cause: error,
    details: { url: request.url.origin },
  });
}

function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current !== undefined && chain.length < 10) {
    chain.push(current);
    current = current instanceof Error ? current.cause : undefined;
  }
  return chain;
}
