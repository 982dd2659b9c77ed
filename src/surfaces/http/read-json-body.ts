import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { MAX_JSON_DEPTH, pathPastDepth, shortPath } from '../../foundation/util/json-depth.js';

/**
 * Reads a request body as JSON within `maxBytes`. Throws `payload_too_large` past the limit
 * (checked on the declared length first, then on what actually arrives, so a chunked body cannot
 * slip through) and `invalid_request` for malformed JSON.
 *
 * On Node it reads the IncomingMessage directly: going through `c.req.raw.body` makes the adapter
 * build a web ReadableStream per request, the largest per-call cost of the HTTP path.
 */
export async function readJsonBody(c: Context, maxBytes: number): Promise<unknown> {
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const bytes = incoming ? await readIncoming(incoming, maxBytes) : await readWebBody(c.req.raw, maxBytes);
  // The SyntaxError cause marks a body that is not JSON at all (JSON-RPC's -32700 Parse error).
  if (bytes.length === 0)
    throw new GatewayError('invalid_request', 'The request has no body', {
      cause: new SyntaxError('empty body'),
    });
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString('utf8')) as unknown;
  } catch (error) {
    throw new GatewayError('invalid_request', `Malformed JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Deeply nested data is cheap to send and overflows recursive code further in (validation,
  // tools): refused here as the caller's doing rather than failing later as the server's.
  const deep = pathPastDepth(body);
  if (deep !== undefined) {
    throw new GatewayError(
      'payload_too_large',
      `The request body nests deeper than ${MAX_JSON_DEPTH} levels (at ${shortPath(deep)})`,
      { details: { maxDepth: MAX_JSON_DEPTH } },
    );
  }
  return body;
}

/**
 * The body of a Node request, read through the stream's events: iterating the stream (`for await`)
 * cost more than the rest of reading and parsing a call's body (the iterator's end-of-stream
 * watcher, its abort signal and a promise per chunk).
 */
function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<Buffer> {
  // What iterating would find: an ended stream has nothing left, a destroyed one closed early.
  if (incoming.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (incoming.destroyed) return Promise.reject(prematureClose());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      incoming.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        // Discard the rest so the 413 answer can still be written on this connection.
        incoming.resume();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // Closed before its end: the client went away mid-body.
    const onClose = () => {
      stop();
      reject(prematureClose());
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    incoming.on('close', onClose);
  });
}

/** The error `for await` over a stream reports when it closes before its end. */
function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

async function readWebBody(request: Request, maxBytes: number): Promise<Buffer> {
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
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
  return Buffer.concat(chunks, size);
}

function tooLarge(maxBytes: number): GatewayError {
  return new GatewayError('payload_too_large', `The request body is over the limit of ${maxBytes} bytes`, {
    details: { limit: maxBytes },
  });
}
