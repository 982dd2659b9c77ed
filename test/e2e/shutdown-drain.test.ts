import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, connectHttp, ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

/**
 * SIGTERM drains: the real gateway process, slow calls in flight over MCP Streamable HTTP, REST
 * and stdio (a real stdio downstream server sleeping), then SIGTERM. Every call gets its answer —
 * the result when it finishes within `shutdown.graceMs`, a clean `backend_unavailable` error when
 * it does not — and the process exits 0. A second signal exits at once.
 */
const FAULTY = path.join(ROOT, 'test/fixtures/mcp/faulty-server.mjs');

let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-drain-'));
  config = path.join(dir, 'gateway.yaml');
  const q = (value: string) => JSON.stringify(value);
  await writeFile(
    config,
    [
      'tools: { builtin: false }',
      'exposure: flat',
      'shutdown: { graceMs: 3000 }',
      'servers:',
      `  faulty: { command: ${q(process.execPath)}, args: [${q(FAULTY)}] }`,
    ].join('\n'),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function exitOf(gateway: { child: RunningGateway['child'] }): Promise<number | null> {
  if (gateway.child.exitCode !== null) return Promise.resolve(gateway.child.exitCode);
  return new Promise((resolve) => gateway.child.once('exit', (code) => resolve(code)));
}

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
}

async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const response = await fetch(`${url}/readyz`).catch(() => undefined);
    if (response?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('gateway not ready');
}

/** A REST call: the status and the JSON body, or the transport failure's message. */
async function rest(url: string, ms: number): Promise<{ status: number; body: any } | { failed: string }> {
  try {
    const response = await fetch(`${url}/api/tools/faulty:sleep`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ms }),
    });
    return { status: response.status, body: await response.json() };
  } catch (error) {
    return { failed: String((error as Error).cause ?? error) };
  }
}

describe('SIGTERM drains in-flight calls', { timeout: 60_000 }, () => {
  it('over MCP HTTP and REST: calls that finish within the grace get results, the rest a clean error; exit 0', async () => {
    const gateway = await startHttpGateway(['--config', config]);
    try {
      await ready(gateway.url);
      const clients = await Promise.all(Array.from({ length: 4 }, () => connectHttp(gateway.url)));
      const quick = clients.map((c) => c.callTool({ name: 'faulty__sleep', arguments: { ms: 1000 } }));
      const slow = clients.map((c) =>
        c.callTool({ name: 'faulty__sleep', arguments: { ms: 60_000 } }, undefined, { timeout: 120_000 }),
      );
      const restQuick = rest(gateway.url, 1000);
      const restSlow = rest(gateway.url, 60_000);
      // Let every call reach the downstream server.
      await new Promise((resolve) => setTimeout(resolve, 400));
      const exited = exitOf(gateway);
      gateway.child.kill('SIGTERM');

      for (const result of await Promise.all(quick)) {
        expect(result.isError, text(result)).toBeFalsy();
        expect(text(result)).toBe('slept');
      }
      for (const result of await Promise.all(slow)) {
        expect(result.isError).toBe(true);
        expect(text(result)).toMatch(/^\[backend_unavailable\] .*shutting down/);
      }
      expect(await restQuick).toMatchObject({ status: 200, body: { success: true } });
      expect(await restSlow).toMatchObject({
        status: 503,
        body: { success: false, error: { code: 'backend_unavailable' } },
      });
      expect(await exited).toBe(0);
      await Promise.all(clients.map((c) => c.close().catch(() => {})));
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  });

  it('refuses new calls while draining', async () => {
    const gateway = await startHttpGateway(['--config', config]);
    try {
      await ready(gateway.url);
      const client = await connectHttp(gateway.url);
      const slow = client.callTool({ name: 'faulty__sleep', arguments: { ms: 60_000 } }, undefined, {
        timeout: 120_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 400));
      const exited = exitOf(gateway);
      gateway.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // A call on the session already open is not left waiting: the listener accepts no new
      // connection (refused at once), or the call is answered backend_unavailable.
      const late = await client.callTool({ name: 'faulty__sleep', arguments: { ms: 10 } }).then(
        (result) => text(result),
        (error: unknown) => `refused: ${String((error as Error).cause ?? error)}`,
      );
      expect(late).toMatch(/^\[backend_unavailable\] .*shutting down|^refused: .*ECONNREFUSED/);
      // A new connection is not accepted (or is answered 503).
      const fresh = await rest(gateway.url, 10);
      if ('status' in fresh) expect(fresh.status).toBe(503);
      expect(text(await slow)).toMatch(/^\[backend_unavailable\]/);
      expect(await exited).toBe(0);
      await client.close().catch(() => {});
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  });

  it('a chain in flight is one call: its later steps still run during the grace period', async () => {
    const chained = path.join(dir, 'metatools.yaml');
    await writeFile(
      chained,
      (await import('node:fs')).readFileSync(config, 'utf8').replace('exposure: flat', 'exposure: metatools'),
    );
    const gateway = await startHttpGateway(['--config', chained]);
    try {
      await ready(gateway.url);
      const client = await connectHttp(gateway.url);
      const step = { tool_id: 'faulty:sleep', args: { ms: 800 } };
      const chain = client.callTool({ name: 'run_chain', arguments: { steps: [step, step] } });
      await new Promise((resolve) => setTimeout(resolve, 400));
      const exited = exitOf(gateway);
      gateway.child.kill('SIGTERM');
      // The second step starts after the signal; it belongs to a call in flight, so it runs.
      const result = await chain;
      expect(result.isError, text(result)).toBeFalsy();
      expect(await exited).toBe(0);
      await client.close().catch(() => {});
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  });

  it('over stdio: the call in flight is answered before the process exits 0', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--config', config],
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'drain-stdio', version: '1' });
    await client.connect(transport);
    const pid = transport.pid;
    expect(pid).toBeGreaterThan(0);
    // The SDK keeps the child private; its exit code is what this test is about.
    const child = (transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    // Wait for the downstream server's tools to be listed.
    const deadline = Date.now() + 20_000;
    while (!(await client.listTools()).tools.some((t) => t.name === 'faulty__sleep')) {
      if (Date.now() > deadline) throw new Error('faulty__sleep never listed');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const quick = client.callTool({ name: 'faulty__sleep', arguments: { ms: 1000 } });
    const slow = client.callTool({ name: 'faulty__sleep', arguments: { ms: 60_000 } }, undefined, {
      timeout: 120_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
    });
    process.kill(pid as number, 'SIGTERM');
    expect(text(await quick)).toBe('slept');
    const late = await slow;
    expect(late.isError).toBe(true);
    expect(text(late)).toMatch(/^\[backend_unavailable\] .*shutting down/);
    await closed;
    expect(await exited).toBe(0);
  });

  it('a second SIGTERM exits at once, without waiting for the grace period', async () => {
    const long = path.join(dir, 'long-grace.yaml');
    await writeFile(long, (await import('node:fs')).readFileSync(config, 'utf8').replace('3000', '600000'));
    const gateway = await startHttpGateway(['--config', long]);
    try {
      await ready(gateway.url);
      const client = await connectHttp(gateway.url);
      void client
        .callTool({ name: 'faulty__sleep', arguments: { ms: 600_000 } }, undefined, { timeout: 700_000 })
        .catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 400));
      const exited = exitOf(gateway);
      gateway.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(gateway.child.exitCode).toBeNull(); // still draining
      gateway.child.kill('SIGTERM');
      // Safety bound only: the grace period here is ten minutes.
      const code = await Promise.race([
        exited,
        new Promise((resolve) => setTimeout(() => resolve('hung'), 15_000)),
      ]);
      expect(code).not.toBe('hung');
      expect(code).not.toBe(0);
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  });
});
