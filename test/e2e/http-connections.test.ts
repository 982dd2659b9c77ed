import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectSse, ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';
import { type OpenSocket, openSocket, raw } from './raw-http.js';

const KEY = 'e2e-connections-key-0123456789';

async function gatewayWith(lines: string[]): Promise<RunningGateway> {
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-conn-'));
  const file = path.join(dir, 'aperture.yaml');
  await writeFile(
    file,
    ['server: { name: conn-e2e }', 'observability: { logLevel: error }', ...lines, ''].join('\n'),
  );
  return startHttpGateway(['--config', file]);
}

/** Waits until `count` of the sockets are closed; the rest must still be open then. */
async function closedOf(sockets: OpenSocket[], count: number): Promise<OpenSocket[]> {
  const closed: OpenSocket[] = [];
  await new Promise<void>((resolve) => {
    for (const s of sockets) {
      void s.closed.then(() => {
        closed.push(s);
        if (closed.length === count) resolve();
      });
    }
  });
  return closed;
}

function closeAll(sockets: OpenSocket[]): Promise<unknown> {
  for (const s of sockets) s.socket.destroy();
  return Promise.all(sockets.map((s) => s.closed));
}

// Regression: connections were not capped and headersTimeout was 301 s, so 1,100 trickling
// connections from one unauthenticated client held every descriptor and /healthz failed.
describe('connection caps (http.maxConnections, http.maxConnectionsPerAddress)', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await gatewayWith([
      // Long header timeout: the sockets closed here are closed by the caps, not by a deadline.
      'http: { maxConnections: 12, maxConnectionsPerAddress: 4, headersTimeoutMs: 60000, requestTimeoutMs: 60000 }',
      'auth:',
      `  apiKeys: [{ name: ops, key: "${KEY}" }]`,
    ]);
  });
  afterAll(async () => gateway?.[Symbol.asyncDispose]());

  it('closes an address’s unauthenticated connections past its cap at once; /healthz from another address answers', async () => {
    const sockets: OpenSocket[] = [];
    for (let i = 0; i < 10; i++) sockets.push(await openSocket(gateway.url, '127.0.0.1'));
    try {
      const closed = await closedOf(sockets, 6);
      // The first four are the ones kept.
      expect(closed.every((s) => sockets.indexOf(s) >= 4)).toBe(true);
      expect(sockets.slice(0, 4).every((s) => !s.socket.destroyed)).toBe(true);
      const health = await raw(gateway.url, { path: '/healthz', localAddress: '127.0.0.2' });
      expect(health.status).toBe(200);
    } finally {
      await closeAll(sockets);
    }
  }, 15_000);

  it('does not count connections that carried an authenticated request', async () => {
    const trusted: OpenSocket[] = [];
    const idle: OpenSocket[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        const s = await openSocket(gateway.url, '127.0.0.3');
        s.socket.write(`GET /api/tools?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${KEY}\r\n\r\n`);
        await new Promise<void>((resolve) => {
          const check = () => (/^HTTP\/1.1 200/.test(s.received()) ? resolve() : setTimeout(check, 20));
          check();
        });
        trusted.push(s);
      }
      for (let i = 0; i < 5; i++) idle.push(await openSocket(gateway.url, '127.0.0.3'));
      const closed = await closedOf([...trusted, ...idle], 1);
      expect(closed[0]).toBe(idle[4]);
      expect(trusted.every((s) => !s.socket.destroyed)).toBe(true);
    } finally {
      await closeAll([...trusted, ...idle]);
    }
  }, 15_000);

  it('closes connections past maxConnections at once', async () => {
    const sockets: OpenSocket[] = [];
    try {
      for (const address of ['127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7']) {
        for (let i = 0; i < 4; i++) sockets.push(await openSocket(gateway.url, address));
      }
      const closed = await closedOf(sockets, 4);
      expect(closed.every((s) => sockets.indexOf(s) >= 12)).toBe(true);
      expect(sockets.slice(0, 12).every((s) => !s.socket.destroyed)).toBe(true);
    } finally {
      await closeAll(sockets);
    }
  }, 15_000);
});

describe('request deadlines (http.headersTimeoutMs, http.requestTimeoutMs)', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await gatewayWith([
      'http: { headersTimeoutMs: 1000, requestTimeoutMs: 2000 }',
      `tools: { builtin: true, modules: [${JSON.stringify(path.join(ROOT, 'test/fixtures/tools/fixture-tools.ts'))}] }`,
    ]);
  });
  afterAll(async () => gateway?.[Symbol.asyncDispose]());

  /** Writes `chunk` every 100 ms until the connection closes. */
  function trickle(s: OpenSocket, chunk: string): void {
    const timer = setInterval(() => s.socket.write(chunk), 100);
    void s.closed.then(() => clearInterval(timer));
  }

  it('answers 408 and closes a connection that trickles its headers', async () => {
    const s = await openSocket(gateway.url);
    s.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    trickle(s, 'X-Slow: 1\r\n');
    await s.closed; // without a deadline this hangs until the test's own timeout
    expect(s.received()).toMatch(/^HTTP\/1.1 408/);
  }, 15_000);

  it('answers 408 and closes a connection that trickles its body', async () => {
    const s = await openSocket(gateway.url);
    s.socket.write(
      'POST /api/search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
    );
    trickle(s, ' ');
    await s.closed;
    expect(s.received()).toMatch(/^HTTP\/1.1 408/);
  }, 15_000);

  it('does not bound the response: a call answered after requestTimeoutMs still arrives', async () => {
    const res = await raw(gateway.url, {
      method: 'POST',
      path: '/api/tools/fixture:wait',
      body: '{"ms":3000}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).result.structuredContent).toEqual({ waited: 3000 });
  }, 15_000);

  it('keeps a legacy SSE stream open past both deadlines: it still carries answers', async () => {
    await using client = await connectSse(gateway.url);
    // Past requestTimeout plus the checking interval: a deadline on responses would have closed it.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('search_tools');
  }, 15_000);
});
