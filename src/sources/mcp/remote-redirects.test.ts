import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { openConnection } from './open-connection.js';

/**
 * A downstream MCP server over HTTP that redirects elsewhere gets its credentials kept home. The
 * SDK's transports refuse cross-origin redirects themselves (`redirectPolicy: 'same-origin'`); this
 * pins that, so an SDK upgrade that relaxes it is noticed.
 */
let home: http.Server;
let elsewhere: http.Server;
let homeOrigin: string;
let elsewhereOrigin: string;
const arrived: { url: string; headers: http.IncomingHttpHeaders }[] = [];

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  elsewhere = http.createServer((req, res) => {
    arrived.push({ url: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(404).end();
  });
  elsewhereOrigin = await listen(elsewhere);
  home = http.createServer((req, res) => {
    req.resume();
    res.writeHead(307, { location: `${elsewhereOrigin}${req.url ?? '/'}` }).end();
  });
  homeOrigin = await listen(home);
});
afterAll(async () => {
  await new Promise((resolve) => home.close(resolve));
  await new Promise((resolve) => elsewhere.close(resolve));
});

describe('remote MCP servers that redirect', () => {
  it.each(['streamable-http', 'sse'] as const)(
    'do not pass configured headers or URL keys to another origin (%s)',
    async (transport) => {
      arrived.length = 0;
      await expect(
        openConnection(
          {
            kind: 'remote',
            url: `${homeOrigin}/mcp?key=url-key-1`,
            transport,
            headers: { 'X-Api-Key': 'header-key-1', Authorization: 'Bearer bearer-1' },
          },
          {
            clientInfo: { name: 't', version: '1' },
            capabilities: {},
            log: silentLogger,
            timeoutMs: 3000,
          },
        ),
      ).rejects.toBeDefined();
      for (const request of arrived) {
        expect(request.headers['x-api-key']).toBeUndefined();
        expect(request.headers.authorization).toBeUndefined();
        expect(request.url).not.toContain('url-key-1');
      }
    },
  );
});
