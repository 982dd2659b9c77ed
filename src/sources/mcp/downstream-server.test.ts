import { afterEach, describe, expect, it } from 'vitest';
import { fixtureServerPath } from '../../../test/support/fixture-servers.js';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { DownstreamServer } from './downstream-server.js';

/*
 * The façade over supervision, listing, relay and backend, on a real stdio server (the faulty
 * fixture): its parts are tested alone next to it; here, that they are wired together.
 */

const running: DownstreamServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

function faulty() {
  const published: CatalogEntry[][] = [];
  let connected = 0;
  const server = new DownstreamServer({
    name: 'faulty',
    namespace: 'faulty',
    target: {
      kind: 'stdio',
      command: process.execPath,
      args: [fixtureServerPath('faulty-server.mjs')],
      env: {},
    },
    relistIntervalMs: 0,
    clientInfo: { name: 'test', version: '1' },
    publish: (entries) => published.push(entries),
    log: silentLogger,
    backoff: { minMs: 20, maxMs: 50 },
    onConnected: () => connected++,
  });
  running.push(server);
  return { server, published, connected: () => connected };
}

const context = (): ExecutionContext => ({
  signal: new AbortController().signal,
  callId: 'c1',
  caller: { identity: 'test' },
  progress: () => {},
  log: silentLogger,
});

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
};

describe('DownstreamServer', () => {
  it('connects, publishes its tools, and executes them through the catalog entries', async () => {
    const { server, published, connected } = faulty();
    await server.firstAttempt;
    expect(server.snapshot()).toMatchObject({ state: 'connected', transport: 'stdio', failures: 0 });
    expect(server.snapshot().tools).toBeGreaterThan(3);
    expect(server.pid()).toBeGreaterThan(0);
    expect(server.capabilities()?.tools).toBeDefined();
    expect(connected()).toBe(1);
    const echo = published.at(-1)?.find((entry) => entry.tool.origin.originalName === 'echo');
    if (!echo) throw new Error('echo was not published');
    expect(echo.backend).toBe(server);
    const result = await server.execute(echo.tool, { text: 'hi' }, context());
    expect(result).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });
  });

  it('comes back after its process dies, and refuses calls once stopped', async () => {
    const { server, published, connected } = faulty();
    await server.firstAttempt;
    const pid = server.pid();
    const crash = published.at(-1)?.find((entry) => entry.tool.origin.originalName === 'crash');
    if (!crash) throw new Error('crash was not published');
    await expect(server.execute(crash.tool, {}, context())).rejects.toMatchObject({
      code: 'backend_unavailable',
    });
    await until(() => connected() === 2);
    expect(server.pid()).not.toBe(pid);
    await server.stop();
    expect(server.snapshot().state).toBe('stopped');
    await expect(server.withClient(undefined, async () => 'used')).rejects.toMatchObject({
      code: 'backend_unavailable',
    });
    await expect(server.reconnect()).rejects.toThrow(/stopped/);
  });
});
