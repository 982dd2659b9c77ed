import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { readJsonBody } from './read-json-body.js';

/** A request context whose Node request is `incoming` (as the Node adapter hands it over). */
function contextOf(incoming: PassThrough, headers: Record<string, string> = {}): Context {
  return {
    req: { header: (name: string) => headers[name] },
    env: { incoming: incoming as unknown as IncomingMessage },
  } as unknown as Context;
}

describe('readJsonBody (Node request)', () => {
  it('reads a body arriving in chunks and parses it', async () => {
    const incoming = new PassThrough();
    const read = readJsonBody(contextOf(incoming), 1000);
    incoming.write('{"jsonrpc":"2.0",');
    setImmediate(() => incoming.end('"id":1,"method":"ping"}'));
    expect(await read).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
  });

  it('refuses a streamed body past the limit, and drains the rest', async () => {
    const incoming = new PassThrough();
    const read = readJsonBody(contextOf(incoming), 10);
    incoming.write('{"a":"0123456789"}');
    await expect(read).rejects.toMatchObject({ code: 'payload_too_large' });
    incoming.end('more');
    // Drained: the stream still flows to its end with no reader left.
    await new Promise((resolve) => incoming.once('end', resolve));
  });

  it('refuses a declared length past the limit before reading', async () => {
    const incoming = new PassThrough();
    await expect(readJsonBody(contextOf(incoming, { 'content-length': '11' }), 10)).rejects.toMatchObject({
      code: 'payload_too_large',
    });
  });

  it('fails when the request closes before its end, and on an empty or malformed body', async () => {
    const cut = new PassThrough();
    const read = readJsonBody(contextOf(cut), 1000);
    cut.write('{"a":');
    cut.destroy();
    await expect(read).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const empty = new PassThrough();
    empty.end();
    await expect(readJsonBody(contextOf(empty), 1000)).rejects.toMatchObject({ code: 'invalid_request' });
    const malformed = new PassThrough();
    malformed.end('{"a":');
    await expect(readJsonBody(contextOf(malformed), 1000)).rejects.toThrow(/Malformed JSON/);
  });
});
