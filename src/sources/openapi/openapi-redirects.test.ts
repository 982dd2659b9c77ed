import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FIXTURES } from '../../../test/fixtures/openapi/echo-service.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { loadOpenApiSource } from './openapi-source.js';

/**
 * Redirects of an OpenAPI service: credentials configured for the service (its headers, the keys
 * in its base URL's query) never follow a redirect to another origin; same-origin hops keep them.
 */
let elsewhere: http.Server;
let service: http.Server;
let origin: string;
let otherOrigin: string;
let hops = 0;

interface Seen {
  headers: Record<string, string | undefined>;
  url: string;
}

/** Answers every request with the headers and URL it arrived with. */
function echoAll(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ headers: req.headers, url: req.url }));
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  elsewhere = http.createServer(echoAll);
  otherOrigin = await listen(elsewhere);
  service = http.createServer((req, res) => {
    hops++;
    const url = req.url ?? '/';
    if (url.startsWith('/cross/')) {
      // Another origin (another port), keeping the method and the path after the prefix.
      res.writeHead(307, { location: `${otherOrigin}/api/${url.slice('/cross/'.length)}` });
    } else if (url.startsWith('/same/')) {
      res.writeHead(302, { location: `/final/${url.slice('/same/'.length)}` });
    } else if (url.startsWith('/loop/')) {
      res.writeHead(302, { location: url });
    } else {
      echoAll(req, res);
      return;
    }
    res.end();
  });
  origin = await listen(service);
});
afterAll(async () => {
  await new Promise((resolve) => elsewhere.close(resolve));
  await new Promise((resolve) => service.close(resolve));
});

const ctx: ExecutionContext = {
  signal: new AbortController().signal,
  callId: 't',
  caller: { identity: 'test' },
  progress: () => {},
  log: silentLogger,
};

async function getItem(prefix: string): Promise<unknown> {
  const entries = await loadOpenApiSource(
    {
      spec: 'echo-service.yaml',
      namespace: 'echo',
      baseUrl: `${origin}/${prefix}?api_key=query-key-1`,
      headers: { 'X-Api-Key': 'header-key-1', Authorization: 'Bearer bearer-1', 'X-Other': 'kept' },
      allowPrivateNetwork: true,
    },
    { sourceId: 'openapi:echo', baseDir: OPENAPI_FIXTURES, log: silentLogger },
  );
  const found = entries.find((e) => e.tool.name === 'getItem');
  if (!found) throw new Error('no getItem');
  return await found.backend.execute(found.tool, { id: 'x', query_id: 1 }, ctx);
}

describe('OpenAPI redirects', () => {
  it('strips every configured credential header and query key on a redirect to another origin', async () => {
    const seen = (await getItem('cross')) as Seen;
    const url = new URL(seen.url, otherOrigin);
    expect(url.pathname).toBe('/api/items/x');
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(seen.headers.authorization).toBeUndefined();
    expect(url.searchParams.get('api_key')).toBeNull();
    // Every configured header counts as a credential, whatever its name...
    expect(seen.headers['x-other']).toBeUndefined();
    // ...and only those go: the request's own headers and parameters follow.
    expect(seen.headers.accept).toContain('application/json');
    expect(url.searchParams.get('id')).toBe('1');
  });

  it('keeps them on a same-origin redirect', async () => {
    const answer = (await getItem('same')) as Seen;
    expect(answer.url).toMatch(/^\/final\//);
    expect(answer.headers['x-api-key']).toBe('header-key-1');
    expect(answer.headers.authorization).toBe('Bearer bearer-1');
  });

  it('gives up on a redirect loop with backend_unavailable', async () => {
    hops = 0;
    await expect(getItem('loop')).rejects.toMatchObject({ code: 'backend_unavailable' });
    expect(hops).toBeLessThanOrEqual(21);
  });
});
