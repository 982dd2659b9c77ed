import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSourceContract } from '../../catalog/source.contract.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { groupByNamespace } from '../declared/declared-section.js';
import { ENDPOINT_DRIVER } from './endpoint-driver.js';
import { type EndpointEntry, endpointEntrySchema } from './endpoint-entry.js';
import { loadEndpointSource } from './endpoint-source.js';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let server: Server;
let base: string;
const seen: Seen[] = [];
let flaky = 0;
let otherServer: Server;
let other: string;
const landed: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/missing')
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such item');
      if (url.pathname === '/broken') return void res.writeHead(500).end('boom');
      if (url.pathname === '/flaky') {
        flaky++;
        if (flaky % 2 === 1) return void res.writeHead(503).end('busy');
      }
      if (url.pathname === '/away')
        return void res.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      if (url.pathname === '/elsewhere') {
        return void res.writeHead(302, { location: `${other}/landing?${url.searchParams}` }).end();
      }
      if (url.pathname === '/slow') return void setTimeout(() => res.end('{}'), 500);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          items: [{ id: 1 }, { id: 2 }],
        }),
      );
    });
  });
  otherServer = createServer((req, res) => {
    landed.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"landed":true}');
  });
  await new Promise<void>((resolve) => otherServer.listen(0, '127.0.0.1', resolve));
  other = `http://127.0.0.1:${(otherServer.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.close();
  otherServer.close();
});

const context = (): ExecutionContext => ({
  signal: new AbortController().signal,
  callId: 'c',
  caller: { identity: 't' },
  progress: () => {},
  log: silentLogger,
});

function entries(spec: Record<string, Record<string, unknown>>): Record<string, EndpointEntry> {
  return Object.fromEntries(Object.entries(spec).map(([k, v]) => [k, endpointEntrySchema.parse(v)]));
}

async function load(spec: Record<string, Record<string, unknown>>) {
  const [[, group]] = groupByNamespace('endpoints', entries(spec)) as [
    [string, ReturnType<typeof groupByNamespace<EndpointEntry>>[number][1]],
  ];
  return loadEndpointSource(group, { sourceId: 'endpoint:endpoints', log: silentLogger });
}

async function call(spec: Record<string, unknown>, args: Record<string, unknown>): Promise<unknown> {
  const [entry] = await load({ t: spec });
  if (!entry) throw new Error('no tool');
  return entry.backend.execute(entry.tool, args, context());
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

runSourceContract('endpoints', async () => ({
  source: ENDPOINT_DRIVER.section.create(
    'endpoints',
    groupByNamespace(
      'endpoints',
      entries({ a: { url: 'http://127.0.0.1:9/a' }, b: { url: 'http://127.0.0.1:9/b' } }),
    )[0]?.[1] as never,
    { baseDir: '.', log: silentLogger, clientInfo: { name: 't', version: '1' } },
  ),
  ids: ['endpoints:a', 'endpoints:b'],
}));

describe('endpoint tools', () => {
  it('fills path, query, header and body templates; sends the bearer; infers the input schema', async () => {
    const [entry] = await load({
      create: {
        method: 'post',
        url: `${base}/users/{id}/notes?v={version}`,
        query: { tag: '{tag}' },
        headers: { 'x-trace': 'trace-{id}' },
        body: { count: '{count}', text: 'hello {name}' },
        auth: 's3cret',
      },
    });
    expect(entry?.tool.inputSchema).toMatchObject({
      properties: { id: { type: 'string' }, version: { type: 'string' }, tag: { type: 'string' }, count: {} },
      required: expect.arrayContaining(['id', 'count', 'name']),
    });
    const result = await entry?.backend.execute(
      entry.tool,
      { id: 'a/b', version: '2', count: 3, name: 'Ann' },
      context(),
    );
    expect(result).toMatchObject({ path: '/users/a%2Fb/notes', query: { v: '2' } });
    const last = seen.at(-1);
    expect(last?.method).toBe('POST');
    expect(last?.url).toBe('/users/a%2Fb/notes?v=2'); // `tag` absent: left out
    expect(last?.headers.authorization).toBe('Bearer s3cret');
    expect(last?.headers['x-trace']).toBe('trace-a/b');
    expect(JSON.parse(last?.body ?? '')).toEqual({ count: 3, text: 'hello Ann' });
  });

  it('picks from the answer with JMESPath', async () => {
    expect(await call({ url: `${base}/list`, response: { pick: 'items[].id' } }, {})).toEqual({
      result: [1, 2],
    });
  });

  it('maps 4xx to execution_failed with the status, 5xx to execution_failed, 503 to backend_unavailable', async () => {
    const missing = await failure(call({ url: `${base}/missing` }, {}));
    expect([missing.code, missing.details?.status]).toEqual(['execution_failed', 404]);
    expect(missing.message).toContain('no such item');
    expect((await failure(call({ url: `${base}/broken` }, {}))).code).toBe('execution_failed');
    flaky = 0; // the next answer is 503
    const busy = await failure(call({ url: `${base}/flaky` }, {}));
    expect([busy.code, busy.details?.status]).toEqual(['backend_unavailable', 503]);
  });

  it('retries an idempotent request that met 503', async () => {
    flaky = 0; // the next answer is 503, the one after 200
    expect(await call({ url: `${base}/flaky`, retries: 2 }, {})).toMatchObject({ path: '/flaky' });
  });

  it('refuses a redirect to a private address though the configured host is private', async () => {
    const refused = await failure(call({ url: `${base}/away` }, {}));
    expect(refused.code).toBe('forbidden');
    expect(refused.message).toContain('169.254.169.254');
  });

  it('drops the auth, configured headers and configured query keys on a redirect to another origin', async () => {
    const result = await call(
      {
        url: `${base}/elsewhere?api_key=k1&page={page}`,
        headers: { 'x-api-key': 'k2' },
        auth: 'tok',
        allowPrivateNetwork: true,
      },
      { page: '2' },
    );
    expect(result).toEqual({ landed: true });
    const hop = landed.at(-1);
    expect(hop?.url).toBe('/landing?page=2');
    expect(hop?.headers.authorization).toBeUndefined();
    expect(hop?.headers['x-api-key']).toBeUndefined();
  });

  it('times out with `timeout`', async () => {
    expect((await failure(call({ url: `${base}/slow`, timeoutMs: 100 }, {}))).code).toBe('timeout');
  });

  it('refuses bad entries with config_invalid naming the key', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [
        { url: `${base}/u/{id}`, inputSchema: { type: 'object', properties: { idd: {} } } },
        'endpoints.t.url',
      ],
      [{ url: 'http://{host}/x' }, 'endpoints.t.url'],
      [{ url: `${base}/x`, method: 'POST', retries: 1 }, 'endpoints.t.retries'],
      [{ url: `${base}/x`, response: { pick: 'items[' } }, 'endpoints.t.response.pick'],
      [{ url: `${base}/x`, body: { a: 1 } }, 'endpoints.t.body'],
    ];
    for (const [spec, key] of cases) {
      const error = await failure(load({ t: spec }));
      expect([error.code, error.details?.key], JSON.stringify(spec)).toEqual(['config_invalid', key]);
    }
  });
});
