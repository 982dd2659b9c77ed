import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalResponseFetch } from './global-response-fetch.js';

describe('globalResponseFetch', () => {
  let server: Server;
  let base: string;
  const original = globalThis.Response;
  /** What an HTTP server library does to the global: its own Response class. */
  class ForeignResponse extends original {}

  beforeAll(async () => {
    server = createServer((request, response) => {
      const status = request.url === '/error' ? 400 : 200;
      response.writeHead(status, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    globalThis.Response = original;
    server.close();
  });

  it('gives error responses as instances of the global Response in use, body intact', async () => {
    globalThis.Response = ForeignResponse;
    try {
      const response = await globalResponseFetch(`${base}/error`);
      expect(response).toBeInstanceOf(ForeignResponse);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: 'invalid_grant' });
    } finally {
      globalThis.Response = original;
    }
  });

  it('passes successful responses through untouched (streams are not buffered)', async () => {
    globalThis.Response = ForeignResponse;
    try {
      const response = await globalResponseFetch(`${base}/ok`);
      expect(response).not.toBeInstanceOf(ForeignResponse);
      expect(response.status).toBe(200);
    } finally {
      globalThis.Response = original;
    }
  });
});
