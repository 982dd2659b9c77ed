import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { NetworkGuard } from './network-guard.js';

/** Options of {@link guardedFetch}. */
export interface GuardedFetchOptions {
  /**
   * Checks every hop (the first request and each redirect target) and pins its connection; absent:
   * any http(s) address is allowed (downstream MCP servers, which are configured explicitly).
   */
  guard?: NetworkGuard;
  /**
   * Header names configured for the source (its credentials, whatever they are called): removed
   * before a redirect leaves the origin of the first request. `authorization`, `cookie` and
   * `proxy-authorization` always are.
   */
  credentialHeaders?: readonly string[];
  /** Query parameter names configured for the source (`?api_key=`): removed likewise. */
  credentialQuery?: readonly string[];
  /** Redirects followed before giving up with `backend_unavailable`. Default 20 (as fetch). */
  maxRedirects?: number;
}

/** Headers no redirect to another origin ever carries (fetch's own rule, kept here). */
const ALWAYS_STRIPPED = ['authorization', 'cookie', 'proxy-authorization'];

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A `fetch` that follows redirects itself instead of leaving them to fetch, because fetch knows
 * only `authorization` and `cookie` as credentials: a redirect to another origin would carry a
 * configured `x-api-key` (or a key in the query) to whoever the service points at. Here every
 * configured credential is dropped once a redirect leaves the first request's origin (and not
 * restored if a later hop comes back), and every hop passes the network guard (SSRF), which also
 * pins the connection.
 *
 * Bodies are replayed on 307/308 (the gateway's requests carry strings); 301/302 after a POST and
 * every 303 become a GET without a body, as browsers and fetch do.
 */
export function guardedFetch(options: GuardedFetchOptions = {}): typeof fetch {
  const { guard } = options;
  const maxRedirects = options.maxRedirects ?? 20;
  const stripped = [...ALWAYS_STRIPPED, ...(options.credentialHeaders ?? [])];
  const query = options.credentialQuery ?? [];
  return async (input, init) => {
    const request = input instanceof Request ? input : undefined;
    let url = new URL(request ? request.url : input instanceof URL ? input.href : String(input));
    let method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers ?? request?.headers);
    let body = init?.body ?? (request?.body ? await request.arrayBuffer() : undefined);
    const origin = url.origin;
    const signal = init?.signal ?? request?.signal;
    const follow = (init?.redirect ?? 'follow') === 'follow';
    for (let hop = 0; ; hop++) {
      if (guard) await guard.check(url);
      const next: RequestInit = { ...init, method, headers, redirect: 'manual' };
      if (body === undefined || body === null) delete next.body;
      else next.body = body;
      if (signal) next.signal = signal;
      const dispatcher = guard?.dispatcher();
      // `dispatcher` is undici's extension to RequestInit; Node's global fetch honours it.
      if (dispatcher) Object.assign(next, { dispatcher });
      const response = await fetch(url, next);
      const location = response.headers.get('location');
      if (!follow || !REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel().catch(() => {});
      if (hop >= maxRedirects) {
        throw new GatewayError(
          'backend_unavailable',
          `${origin} redirected more than ${maxRedirects} times`,
          {
            details: { url: origin },
          },
        );
      }
      const target = new URL(location, url);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new GatewayError('backend_unavailable', `${origin} redirected to a ${target.protocol} URL`, {
          details: { url: origin },
        });
      }
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === 'POST')
      ) {
        if (method !== 'HEAD') method = 'GET';
        body = undefined;
        headers.delete('content-type');
        headers.delete('content-length');
      }
      if (target.origin !== origin) {
        for (const name of stripped) headers.delete(name);
        // Only when present: deleting re-serialises the query, which could change its encoding.
        for (const name of query) if (target.searchParams.has(name)) target.searchParams.delete(name);
      }
      url = target;
    }
  };
}

/** The names of the query parameters of `url` (credentials a source carries in its URL). */
export function queryNames(url: string | URL | undefined): string[] {
  if (url === undefined) return [];
  const parsed = typeof url === 'string' ? (URL.canParse(url) ? new URL(url) : undefined) : url;
  return parsed ? [...new Set(parsed.searchParams.keys())] : [];
}
