import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

/*
 * Per-server recovery inside a live session, end to end: a downstream Streamable HTTP server of
 * our own that drops its sessions on demand (404 for known ids, open streams ended, as a restart
 * would), `aperture serve` in front of it with a second server beside it, and the official SDK
 * client with one open session. The session keeps calling the read-only tool across drops
 * without an error; a non-idempotent call in flight when the server drops answers a retryable
 * `backend_unavailable` saying the server restarted, and is not run twice.
 */

const FIXTURE = new URL('../fixtures/federation/session-dropping-server.mjs', import.meta.url).pathname;

async function startFixture(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const match = /^listening (http:\/\/\S+)$/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`fixture exited with ${code}`)));
  });
  return { url, child };
}

function content(result: unknown): Record<string, any> {
  return (result as { structuredContent: Record<string, any> }).structuredContent;
}

function textOf(result: unknown): string {
  const c = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return c.map((part) => part.text ?? '').join('');
}

describe('a downstream HTTP server that loses its sessions, inside a live client session', () => {
  let dir: string;
  let fixture: { url: string; child: ChildProcess };
  let gateway: RunningGateway;
  let client: Client;
  const drop = async () => (await fetch(`${fixture.url}/control/drop`, { method: 'POST' })).json();
  const stats = async () =>
    (await (await fetch(`${fixture.url}/control/stats`)).json()) as { writes: number; initializes: number };

  beforeAll(async () => {
    fixture = await startFixture();
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-session-loss-'));
    const config = [
      'server: { name: aperture-session-loss }',
      'tools: { builtin: true }',
      'exposure: { mode: flat }',
      'servers:',
      `  flaky: { url: "${fixture.url}/mcp" }`,
      'observability: { logLevel: warn }',
    ].join('\n');
    await writeFile(path.join(dir, 'aperture.yaml'), `${config}\n`);
    gateway = await startHttpGateway(['--config', 'aperture.yaml'], dir);
    client = new Client({ name: 'session-loss-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
  }, 60_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await gateway?.[Symbol.asyncDispose]();
    fixture?.child.kill('SIGTERM');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps calling the read-only tool across session losses without an error', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['flaky__read', 'flaky__write']));
    const recoveries: number[] = [];
    for (let n = 0; n < 5; n++) {
      const before = await client.callTool({ name: 'flaky__read', arguments: { key: `k${n}` } });
      expect(before.isError, JSON.stringify(before)).toBeFalsy();
      expect(await drop()).toMatchObject({ dropped: 1 });
      const started = performance.now();
      const after = await client.callTool({ name: 'flaky__read', arguments: { key: `k${n}` } });
      recoveries.push(performance.now() - started);
      expect(after.isError, JSON.stringify(after)).toBeFalsy();
      expect(textOf(after)).toBe(`value of k${n}`);
    }
    // Each loss re-initialised the one server's connection once; the client's session is the same.
    expect((await stats()).initializes).toBeGreaterThanOrEqual(6);
    console.log(
      `recovery after a session loss (first call after): ${recoveries.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
  }, 60_000);

  it('answers a non-idempotent call in flight with a retryable backend_unavailable saying the server restarted, once', async () => {
    const writesBefore = (await stats()).writes;
    const inFlight = client.callTool({ name: 'flaky__write', arguments: { key: 'x', ms: 1500 } });
    await new Promise((resolve) => setTimeout(resolve, 400));
    await drop();
    const result = await inFlight;
    expect(result.isError, JSON.stringify(result)).toBe(true);
    const error = content(result)?.error ?? JSON.parse(textOf(result)).error;
    expect(error?.code, JSON.stringify(result)).toBe('backend_unavailable');
    expect(error?.retryable).toBe(true);
    expect(error?.message).toMatch(/restarted/);
    // Run once, not twice: the gateway did not send it again.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await stats()).writes).toBe(writesBefore + 1);
    // And the session goes on.
    const read = await client.callTool({ name: 'flaky__read', arguments: { key: 'after' } });
    expect(read.isError, JSON.stringify(read)).toBeFalsy();
  }, 60_000);
});
