import { GatewayError } from '../../../foundation/model/gateway-error.js';
import { defineTool, type ToolDefinition } from '../../local/define-tool.js';
import { guardedFetch } from '../../net/guarded-fetch.js';
import { NetworkGuard } from '../../net/network-guard.js';
import { inputError } from '../input-error.js';
import { htmlToText } from './html-text.js';

/** Content types `std:fetch` returns by default (a `;` parameter is ignored; `+json`/`+xml` suffixes count). */
export const DEFAULT_FETCH_CONTENT_TYPES = [
  'text/*',
  'application/json',
  'application/xml',
  'application/xhtml+xml',
];
const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;

/** Options of `std:fetch` (`tools.standard.fetch`). */
export interface StdFetchOptions {
  /** Hosts that may be fetched (`example.com`, `*.example.com`); absent: any public host. */
  allow?: readonly string[] | undefined;
  /** Let it reach loopback, private and link-local addresses. Default false. */
  allowPrivateNetwork?: boolean | undefined;
  /** Largest body read, in bytes; more is cut (`truncated: true`). Default 1 MiB. */
  maxBytes?: number | undefined;
  /** Whole request time limit. Default 10 s. */
  timeoutMs?: number | undefined;
  /** Content types returned; others are refused. Default {@link DEFAULT_FETCH_CONTENT_TYPES}. */
  contentTypes?: readonly string[] | undefined;
  /** Host resolution (tests). */
  guard?: NetworkGuard | undefined;
}

/**
 * `std:fetch`: GETs a URL through the SSRF guard (every hop: only http(s), only public addresses
 * unless allowed, the connection pinned to the checked address), within the host allow list (every
 * redirect too), a size cap and a time cap; only text-like content types; HTML turned into text.
 */
export function stdFetchTool(options: StdFetchOptions): ToolDefinition {
  const guard =
    options.guard ?? new NetworkGuard({ allowPrivateNetwork: options.allowPrivateNetwork ?? false });
  const fetchGuarded = guardedFetch({ guard });
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const types = options.contentTypes ?? DEFAULT_FETCH_CONTENT_TYPES;
  const allow = options.allow;
  return defineTool<{ url: string; raw?: boolean }>({
    namespace: 'std',
    name: 'fetch',
    title: 'Fetch a web page',
    description:
      'GETs an http(s) URL and returns its text: HTML is turned into plain text (raw: true keeps ' +
      `the markup), JSON and other text as sent. Bodies over ${maxBytes} bytes are cut. Private ` +
      'and loopback addresses are refused unless the operator allowed them' +
      (allow ? `; only these hosts: ${allow.join(', ')}` : '') +
      '. Returns { url, status, contentType, text, truncated }.',
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: { type: 'string', minLength: 1, maxLength: 8192, description: 'An http or https URL.' },
        raw: { type: 'boolean', description: 'Return HTML as sent instead of as text. Default false.' },
      },
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
    tags: ['web'],
    timeoutMs: timeoutMs + 1000,
    handler: async (args, ctx) => {
      let url: URL;
      try {
        url = new URL(args.url);
      } catch {
        throw inputError('/url', 'must be an absolute http or https URL');
      }
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
      let response: Response | undefined;
      for (let hop = 0; ; hop++) {
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          throw new GatewayError(
            'forbidden',
            `URL scheme "${url.protocol}" is not allowed; only http and https are`,
            {
              details: { url: url.href },
            },
          );
        }
        if (allow && !hostAllowed(url.hostname, allow)) {
          throw new GatewayError(
            'forbidden',
            `The host "${url.hostname}" is not in tools.standard.fetch.allow`,
            {
              details: { url: url.href },
            },
          );
        }
        try {
          response = await fetchGuarded(url, {
            redirect: 'manual',
            signal,
            headers: { accept: types.join(', ') },
          });
        } catch (error) {
          if (error instanceof GatewayError) throw error;
          // The pinned connection refused the address (the guard's own error, wrapped by fetch).
          if (error instanceof Error && error.cause instanceof GatewayError) throw error.cause;
          if (signal.aborted && !ctx.signal.aborted) {
            throw new GatewayError('timeout', `${url.origin} did not answer within ${timeoutMs} ms`);
          }
          throw new GatewayError(
            'execution_failed',
            `Cannot fetch ${url.href}: ${(error as Error).message}`,
            { cause: error },
          );
        }
        const location = response.headers.get('location');
        if (![301, 302, 303, 307, 308].includes(response.status) || location === null) break;
        await response.body?.cancel().catch(() => {});
        if (hop >= MAX_REDIRECTS)
          throw new GatewayError('execution_failed', `${url.origin} redirected too many times`);
        url = new URL(location, url);
      }
      const contentType = response.headers.get('content-type') ?? '';
      const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
      if (!typeAllowed(mediaType, types)) {
        await response.body?.cancel().catch(() => {});
        throw new GatewayError(
          'forbidden',
          `The content type "${mediaType || 'none'}" is not one std:fetch returns (${types.join(', ')})`,
          {
            details: { url: url.href, contentType: mediaType },
          },
        );
      }
      const { bytes, truncated } = await readCapped(response, maxBytes);
      const body = new TextDecoder().decode(bytes);
      const html = mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
      return {
        url: url.href,
        status: response.status,
        contentType: mediaType,
        text: html && args.raw !== true ? htmlToText(body) : body,
        truncated,
      };
    },
  });
}

/** `host` matches an entry: equal, or under a `*.` wildcard (which does not match the bare domain). */
function hostAllowed(host: string, allow: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return allow.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
  });
}

function typeAllowed(mediaType: string, types: readonly string[]): boolean {
  return types.some((type) => {
    if (type.endsWith('/*')) return mediaType.startsWith(type.slice(0, -1));
    if (mediaType === type) return true;
    // application/ld+json is JSON when JSON is allowed.
    const suffix = /\+(json|xml)$/.exec(mediaType)?.[1];
    return suffix !== undefined && type === `application/${suffix}`;
  });
}

async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { bytes: new Uint8Array(), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      await reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  return { bytes: Buffer.concat(chunks), truncated };
}
