import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { guardedFetch, queryNames } from './guarded-fetch.js';
import type { NetworkGuard } from './network-guard.js';

let server: http.Server;
let base: string;
const seen: { method: string; url: string; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body });
      const url = req.url ?? '/';
      if (url === '/see-other') res.writeHead(303, { location: '/done' });
      else if (url === '/temporary') res.writeHead(307, { location: '/done' });
      else if (url === '/inside') res.writeHead(302, { location: 'http://10.0.0.1/metadata' });
      else res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** A guard that allows loopback (the test server) and refuses 10.0.0.0/8, recording each check. */
function recordingGuard(checked: string[]): NetworkGuard {
  return {
    check: async (url: URL | string) => {
      const parsed = new URL(String(url));
      checked.push(parsed.href);
      if (parsed.hostname.startsWith('10.'))
        throw new GatewayError('forbidden', `refused ${parsed.hostname}`);
    },
    dispatcher: () => undefined,
  } as unknown as NetworkGuard;
}

describe('guardedFetch', () => {
  it('puts every redirect hop through the guard, and stops at a refused one', async () => {
    const checked: string[] = [];
    const fetcher = guardedFetch({ guard: recordingGuard(checked) });
    await expect(fetcher(`${base}/inside`)).rejects.toMatchObject({ code: 'forbidden' });
    expect(checked).toEqual([`${base}/inside`, 'http://10.0.0.1/metadata']);
  });

  it('turns a POST answered 303 into a GET without a body; keeps method and body on 307', async () => {
    seen.length = 0;
    const fetcher = guardedFetch();
    const init = { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } };
    expect((await fetcher(`${base}/see-other`, init)).status).toBe(200);
    expect((await fetcher(`${base}/temporary`, init)).status).toBe(200);
    expect(seen).toEqual([
      { method: 'POST', url: '/see-other', body: '{"a":1}' },
      { method: 'GET', url: '/done', body: '' },
      { method: 'POST', url: '/temporary', body: '{"a":1}' },
      { method: 'POST', url: '/done', body: '{"a":1}' },
    ]);
  });

  it('hands a redirect back untouched when the caller asked for manual redirects', async () => {
    const response = await guardedFetch()(`${base}/see-other`, { redirect: 'manual' });
    expect(response.status).toBe(303);
  });
});

describe('queryNames', () => {
  it('lists the query parameter names of a URL, none for other text', () => {
    expect(queryNames('http://h/x?api_key=1&b=2&b=3')).toEqual(['api_key', 'b']);
    expect(queryNames('./spec.yaml')).toEqual([]);
    expect(queryNames(undefined)).toEqual([]);
  });
});
