import type { Context } from 'hono';
import { GatewayError } from '../../foundation/gateway-error.js';

/**
 * Reads a request body as JSON within `maxBytes`. Throws `payload_too_large` past the limit
 * (checked on the declared length first, then on what actually arrives, so a chunked body cannot
 * slip through) and `invalid_request` for malformed JSON.
 */
export async function readJsonBody(c: Context, maxBytes: number): Promise<unknown> {
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const body = c.req.raw.body;
  if (!body) throw new GatewayError('invalid_request', 'The request has no body');
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GatewayError('invalid_request', `Malformed JSON: ${(error as Error).message}`);
  }
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError('payload_too_large', `The request body is over the limit of ${maxBytes} bytes`, {
    details: { limit: maxBytes },
  });
}
