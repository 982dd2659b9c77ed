import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { HttpResponse } from './http-client.js';
import { isJsonMediaType } from './openapi-document.js';

/** How much of an error body goes into the error message and details. */
export const ERROR_EXCERPT_CHARS = 500;

/** Statuses worth retrying: the server says it is busy or a gateway on the way failed. */
const RETRYABLE_STATUSES = new Set([408, 425, 429, 502, 503, 504]);

/**
 * Turns an HTTP response into a backend's raw value (the pipeline normalises it):
 * - 2xx JSON: objects as they are (structured result), arrays and scalars as `{ result }`;
 * - 2xx text (text/*, XML, JavaScript, form data): the text;
 * - 2xx anything else: a short note with the content type and size — never the bytes, which
 *   would only fill the model's context with noise;
 * - 2xx without a body: a note with the status;
 * - anything else: `execution_failed` "HTTP <status> <statusText>: <excerpt>", with `status`,
 *   `body` (the excerpt) and, for 429/503, `retryAfter` in details.
 */
export function readResponse(response: HttpResponse): unknown {
  const contentType = response.headers.get('content-type') ?? '';
  if (response.status < 200 || response.status > 299) throw httpError(response, contentType);
  if (response.body.byteLength === 0) {
    return `HTTP ${response.status} ${response.statusText}`.trim();
  }
  if (isJsonMediaType(contentType)) {
    const text = decode(response.body, contentType);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new GatewayError('execution_failed', `The service answered invalid JSON: ${excerpt(text)}`, {
        cause: error,
        details: { status: response.status, body: excerpt(text) },
      });
    }
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : { result: value };
  }
  if (isTextual(contentType)) return decode(response.body, contentType);
  return `Binary response (${contentType || 'unknown content type'}, ${response.body.byteLength} bytes) not included`;
}

function httpError(response: HttpResponse, contentType: string): GatewayError {
  const body = isTextual(contentType) || isJsonMediaType(contentType) || contentType === '';
  const shown = body
    ? excerpt(decode(response.body, contentType))
    : `(${response.body.byteLength} bytes of ${contentType})`;
  const details: Record<string, unknown> = { status: response.status, body: shown };
  const retryAfter = response.headers.get('retry-after');
  if (retryAfter) details.retryAfter = retryAfter;
  const status = `HTTP ${response.status} ${response.statusText}`.trim();
  return new GatewayError('execution_failed', shown ? `${status}: ${shown}` : status, {
    retryable: RETRYABLE_STATUSES.has(response.status),
    details,
  });
}

function excerpt(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > ERROR_EXCERPT_CHARS ? `${trimmed.slice(0, ERROR_EXCERPT_CHARS)}…` : trimmed;
}

function isTextual(contentType: string): boolean {
  const essence = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    essence.startsWith('text/') ||
    essence.endsWith('+xml') ||
    essence === 'application/xml' ||
    essence === 'application/javascript' ||
    essence === 'application/x-www-form-urlencoded' ||
    essence === 'application/yaml' ||
    essence === 'application/x-yaml'
  );
}

/** Decodes with the declared charset when the platform knows it, else as UTF-8. */
function decode(body: Uint8Array, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
