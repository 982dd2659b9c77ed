import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import type { ToolResult } from '../../src/foundation/model/tool.js';
import type { Logger } from '../../src/foundation/ports/logger.js';
import { failure } from '../support/expect-failure.js';
import { faultyServer, fixtureServerPath, startHttpFixture, waitFor } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

const FAST = { backoff: { minMs: 20, maxMs: 200 } };
const caller = { caller: { identity: 'test' } };

let dir: string;
const open: Gateway[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-faults-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function start(raw: Record<string, unknown>, options: Parameters<typeof gatewayFrom>[1] = FAST) {
  const gateway = await gatewayFrom({ tools: { builtin: false }, ...raw }, options);
  open.push(gateway);
  return gateway;
}

function text(result: ToolResult): string {
  return result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

function server(gateway: Gateway, name: string) {
  const found = gateway.downstream.find((s) => s.name === name);
  if (!found) throw new Error(`no server ${name}`);
  return found;
}

async function marks(file: string): Promise<Record<string, unknown>[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A logger that keeps every record, bindings included. */
function recordingLogger(records: Record<string, unknown>[], bindings: Record<string, unknown> = {}): Logger {
  const write = (level: string) => (obj: object, msg?: string) =>
    void records.push({ level, ...bindings, ...obj, msg });
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => recordingLogger(records, { ...bindings, ...more }),
  };
}

describe('servers that fail to start', () => {
  it('never stop the gateway: it starts, serves the good server, reports and retries the bad ones', async () => {
    const exitsAtOnce = path.join(dir, 'always-fail');
    await writeFile(exitsAtOnce, '');
    const gateway = await start({
      servers: {
        good: faultyServer(),
        badcommand: { command: path.join(dir, 'no-such-binary') },
        exits: faultyServer({ FAULTY_FAIL_IF_EXISTS: exitsAtOnce }),
        unreachable: { url: 'http://127.0.0.1:9/mcp' },
      },
    });
    await gateway.whenReady();
    const readiness = gateway.readiness();
    expect(readiness.ready).toBe(true);
    const states = Object.fromEntries(readiness.sources.map((s) => [s.id, s]));
    expect(states['mcp:good']).toMatchObject({ state: 'connected', transport: 'stdio' });
    expect(states['mcp:good']?.tools).toBeGreaterThan(5);
    for (const bad of ['mcp:badcommand', 'mcp:exits', 'mcp:unreachable']) {
      expect(states[bad]?.state).toBe('failed');
      expect(states[bad]?.lastError?.code).toBe('backend_unavailable');
    }
    expect(states['mcp:badcommand']?.lastError?.message).toMatch(/no-such-binary/);
    expect(states['mcp:unreachable']?.lastError?.message).toMatch(/127\.0\.0\.1:9/);
    expect(text(await gateway.scope.run('good:echo', { text: 'still serving' }, caller))).toBe(
      'still serving',
    );
    // Retried with backoff: the failure count keeps growing.
    await waitFor('retries', () => server(gateway, 'exits').snapshot().failures >= 3);
    // ...and a retry that succeeds brings the server in.
    await rm(exitsAtOnce);
    await waitFor('recovery', () => server(gateway, 'exits').snapshot().state === 'connected');
    expect(text(await gateway.scope.run('exits:echo', { text: 'back' }, caller))).toBe('back');
  });

  it('/readyz answers 503 until every server was tried once, then 200 with each state', async () => {
    const slow = {
      command: '/bin/sh',
      args: ['-c', `sleep 1; exec "${process.execPath}" "${faultyServer().args[0]}"`],
    };
    const gateway = await start({ servers: { slow, broken: { command: path.join(dir, 'nope') } } });
    const listener = await gateway.serveHttp('127.0.0.1', 0);
    const early = await fetch(`${listener.url}/readyz`);
    expect(early.status).toBe(503);
    const earlyBody = (await early.json()) as { sources: { id: string; state: string }[] };
    expect(earlyBody.sources.find((s) => s.id === 'mcp:slow')?.state).toBe('connecting');
    await gateway.whenReady();
    const ready = await fetch(`${listener.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as {
      ready: boolean;
      sources: { id: string; state: string; tools: number; lastError?: { message: string } }[];
    };
    expect(body.ready).toBe(true);
    expect(body.sources.find((s) => s.id === 'mcp:slow')).toMatchObject({ state: 'connected' });
    expect(body.sources.find((s) => s.id === 'mcp:slow')?.tools).toBeGreaterThan(5);
    const broken = body.sources.find((s) => s.id === 'mcp:broken');
    expect(broken?.state).toBe('failed');
    expect(broken?.lastError?.message).toMatch(/nope/);
  });

  it('a tools/list that never stops paging fails the server, naming it, instead of publishing 1,000 pages', async () => {
    const endless = { command: process.execPath, args: [fixtureServerPath('endless-list-server.mjs')] };
    const gateway = await start(
      { servers: { endless, good: faultyServer() } },
      { backoff: { minMs: 60_000 } },
    );
    await gateway.whenReady();
    const status = server(gateway, 'endless').snapshot();
    expect(status).toMatchObject({ state: 'failed', tools: 0, failures: 1 });
    expect(status.lastError).toEqual({
      code: 'backend_unavailable',
      message:
        'server "endless": tools/list still returned a nextCursor after 1000 pages (1000 tools); listing abandoned',
    });
    expect(gateway.catalog.tools().some((t) => t.id.startsWith('endless:'))).toBe(false);
    expect(server(gateway, 'good').snapshot().state).toBe('connected');
  });
});

describe('a server that goes down', () => {
  it('crash mid-call: that call fails fast, calls fail at once while down, the restart brings the tools back', async () => {
    const blocker = path.join(dir, 'block-restart');
    const gateway = await start({ servers: { f: faultyServer({ FAULTY_FAIL_IF_EXISTS: blocker }) } });
    await gateway.whenReady();
    const firstPid = text(await gateway.scope.run('f:pid', {}, caller));
    await writeFile(blocker, '');

    const started = Date.now();
    const slow = failure(gateway.scope.run('f:sleep', { ms: 10_000 }, caller));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const crashed = await failure(gateway.scope.run('f:crash', {}, caller));
    const interrupted = await slow;
    expect(crashed.code).toBe('backend_unavailable');
    expect(interrupted.code).toBe('backend_unavailable');
    expect(Date.now() - started).toBeLessThan(5_000);

    await waitFor('failed state', () => server(gateway, 'f').snapshot().state === 'failed');
    const before = Date.now();
    const down = await failure(gateway.scope.run('f:echo', { text: 'x' }, caller));
    expect(down.code).toBe('backend_unavailable');
    expect(down.retryable).toBe(true);
    expect(Date.now() - before).toBeLessThan(200);
    // The tools stay listed while the server is down.
    expect(gateway.catalog.get('f:echo')).toBeDefined();

    await rm(blocker);
    await waitFor('restart', () => server(gateway, 'f').snapshot().state === 'connected');
    const secondPid = text(await gateway.scope.run('f:pid', {}, caller));
    expect(secondPid).not.toBe(firstPid);
    expect(text(await gateway.scope.run('f:echo', { text: 'back' }, caller))).toBe('back');
  });

  it('a call over its timeout fails with `timeout`, the server gets notifications/cancelled, other calls go on', async () => {
    const markFile = path.join(dir, 'marks-timeout.jsonl');
    const gateway = await start({
      servers: { f: faultyServer({ FAULTY_MARK_FILE: markFile }, { timeoutMs: 400 }) },
    });
    await gateway.whenReady();
    const started = Date.now();
    const slow = failure(gateway.scope.run('f:sleep', { ms: 5_000 }, caller));
    const meanwhile = await gateway.scope.run('f:echo', { text: 'concurrent' }, caller);
    expect(text(meanwhile)).toBe('concurrent');
    const timedOut = await slow;
    expect(timedOut.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3_000);
    await waitFor('cancel mark', async () => (await marks(markFile)).some((m) => m.event === 'cancelled'));
    const cancelled = (await marks(markFile)).find((m) => m.event === 'cancelled');
    expect(cancelled?.requestId).toBeDefined();
    // The connection is fine afterwards.
    expect(text(await gateway.scope.run('f:echo', { text: 'after' }, caller))).toBe('after');
  });

  it('an HTTP server that forgot the session is re-initialised and the call goes through', async () => {
    const http = await startHttpFixture();
    try {
      const gateway = await start({ servers: { web: { url: `${http.url}/mcp` } } });
      await gateway.whenReady();
      expect(server(gateway, 'web').snapshot().transport).toBe('streamable-http');
      expect(text(await gateway.scope.run('web:forget_sessions', {}, caller))).toBe('forgotten');
      expect(text(await gateway.scope.run('web:echo', { text: 'again' }, caller))).toBe('again');
      expect(server(gateway, 'web').snapshot().state).toBe('connected');
    } finally {
      await http.stop();
    }
  });
});

describe('protocol noise and results', () => {
  let gateway: Gateway;
  const records: Record<string, unknown>[] = [];

  beforeAll(async () => {
    gateway = await gatewayFrom(
      {
        tools: { builtin: false },
        execution: { maxResultBytes: 100_000 },
        servers: {
          f: faultyServer({
            FAULTY_STDERR_LINE: 'hello from stderr',
            FAULTY_PAGE_SIZE: '2',
            FAULTY_EXTRA_TOOLS: '5',
          }),
        },
      },
      { ...FAST, log: recordingLogger(records) },
    );
    await gateway.whenReady();
  });
  afterAll(() => gateway.close());

  it('follows tools/list through every page', () => {
    const ids = gateway.catalog.tools().map((t) => t.id);
    for (const name of ['echo', 'add', 'sleep', 'gen_0', 'gen_4']) expect(ids).toContain(`f:${name}`);
    expect(server(gateway, 'f').snapshot().tools).toBe(ids.length);
  });

  it('logs the server’s stderr under its name', async () => {
    await waitFor('stderr line', () => records.some((r) => r.msg === 'hello from stderr'));
    expect(records.find((r) => r.msg === 'hello from stderr')).toMatchObject({
      server: 'f',
      stream: 'stderr',
    });
  });

  it('skips and logs a non-JSON stdout line; the connection lives on', async () => {
    expect(text(await gateway.scope.run('f:noisy', {}, caller))).toBe('still alive');
    expect(text(await gateway.scope.run('f:echo', { text: 'ok' }, caller))).toBe('ok');
    const skipped = records.find((r) => String(r.msg).includes('not JSON-RPC'));
    expect(skipped?.line).toBe('this is not json');
    expect(server(gateway, 'f').snapshot().state).toBe('connected');
  });

  it('refuses a result over maxResultBytes with payload_too_large and passes a smaller one intact', async () => {
    const tooBig = await failure(gateway.scope.run('f:big', { bytes: 200_000 }, caller));
    expect(tooBig.code).toBe('payload_too_large');
    const fits = text(await gateway.scope.run('f:big', { bytes: 90_000 }, caller));
    expect(fits).toBe('x'.repeat(90_000));
  });

  it('keeps a downstream isError result an error: execution_failed with the downstream text', async () => {
    const failed = await failure(gateway.scope.run('f:fail', { message: 'disk on fire' }, caller));
    expect(failed.code).toBe('execution_failed');
    expect(failed.message).toContain('disk on fire');
  });

  it('validates structured output and passes it through', async () => {
    const result = await gateway.scope.run('f:add', { a: 2, b: 3 }, caller);
    expect(result.structuredContent).toEqual({ sum: 5 });
  });
});

describe('tool list changes', () => {
  it('a downstream list_changed re-lists: the catalog updates and each client hears one list_changed', async () => {
    const gateway = await start({ servers: { f: faultyServer() }, exposure: 'flat' });
    await gateway.whenReady();
    const listener = await gateway.serveHttp('127.0.0.1', 0);
    const client = new Client({ name: 't', version: '1' });
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void notified++);
    await client.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}/mcp`)));
    try {
      await client.callTool({ name: 'f__add_tool', arguments: { name: 'fresh' } });
      await waitFor('catalog update', () => gateway.catalog.get('f:fresh') !== undefined);
      await waitFor('notification', () => notified >= 1);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('f__fresh');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(notified).toBe(1);
      await client.callTool({ name: 'f__remove_tool', arguments: { name: 'fresh' } });
      await waitFor('removal', () => gateway.catalog.get('f:fresh') === undefined);
    } finally {
      await client.close();
    }
  });

  it('a server that never announces changes is re-listed on its interval, without spurious changes', async () => {
    const gateway = await start({
      servers: { quiet: faultyServer({ FAULTY_NO_LIST_CHANGED: '1' }, { relistIntervalMs: 150 }) },
    });
    await gateway.whenReady();
    const version = gateway.catalog.version;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(gateway.catalog.version).toBe(version);
    await gateway.scope.run('quiet:add_tool', { name: 'late' }, caller);
    await waitFor('periodic re-list', () => gateway.catalog.get('quiet:late') !== undefined, 3_000);
  });

  it('overrides are re-applied after every re-listing', async () => {
    const gateway = await start({
      servers: { f: faultyServer() },
      overrides: { 'f:fresh': { name: 'renamed', description: 'overridden' }, f: { tags: ['faulty'] } },
    });
    await gateway.whenReady();
    await gateway.scope.run('f:add_tool', { name: 'fresh' }, caller);
    await waitFor('re-list', () => gateway.catalog.get('f:renamed') !== undefined);
    const tool = gateway.catalog.get('f:renamed')?.tool;
    expect(tool?.description).toBe('overridden');
    expect(tool?.tags).toContain('faulty');
    expect(gateway.catalog.get('f:fresh')).toBeUndefined();
    expect(text(await gateway.scope.run('f:renamed', { text: 'via new name' }, caller))).toContain(
      'via new name',
    );
  });
});

describe('remote transports', () => {
  it('auto falls back to legacy SSE and sends the configured headers', async () => {
    const http = await startHttpFixture({ HTTP_FIXTURE_MODE: 'sse-only' });
    try {
      const gateway = await start({
        servers: {
          legacy: { url: `${http.url}/mcp`, headers: { Authorization: 'Bearer t0k', 'X-Fixture': 'yes' } },
        },
      });
      await gateway.whenReady();
      expect(server(gateway, 'legacy').snapshot()).toMatchObject({ state: 'connected', transport: 'sse' });
      const who = await gateway.scope.run('legacy:whoami', {}, caller);
      expect(who.structuredContent).toEqual({ authorization: 'Bearer t0k', 'x-fixture': 'yes' });
    } finally {
      await http.stop();
    }
  });

  it('transport: streamable-http does not fall back', async () => {
    const http = await startHttpFixture({ HTTP_FIXTURE_MODE: 'sse-only' });
    try {
      const gateway = await start({
        servers: { strict: { url: `${http.url}/mcp`, transport: 'streamable-http' } },
      });
      await gateway.whenReady();
      expect(server(gateway, 'strict').snapshot().state).toBe('failed');
    } finally {
      await http.stop();
    }
  });
});
