import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { faultyServer, waitFor } from '../support/fixture-servers.js';
import { CLI } from './gateway-process.js';

/*
 * The stdio edge, end to end: `aperture serve --stdio` with a stdio server (the faulty fixture,
 * which writes a line when a running `sleep` sees its cancellation), and the official SDK client.
 * A call is still running when the client closes the gateway's stdin: the call is cancelled
 * downstream, and the gateway exits only after that, within `shutdown.graceMs`.
 */

describe('aperture serve --stdio when the client closes stdin mid-call', () => {
  let dir: string;
  let marks: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-stdio-close-'));
    marks = path.join(dir, 'marks.jsonl');
    await writeFile(
      path.join(dir, 'aperture.json'),
      JSON.stringify({
        tools: { builtin: false },
        exposure: 'flat',
        servers: { slow: faultyServer({ FAULTY_MARK_FILE: marks }) },
        shutdown: { graceMs: 5000 },
        observability: { logLevel: 'info' },
      }),
    );
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const events = () =>
    existsSync(marks)
      ? readFileSync(marks, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { event: string; tool?: string })
      : [];

  it('cancels the running call downstream, then exits 0 within graceMs', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', '--config', 'aperture.json'],
      cwd: dir,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-close-e2e', version: '1.0.0' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await client.connect(transport);
    const pid = transport.pid as number;
    await waitFor('the server’s tools', async () =>
      (await client.listTools()).tools.some((t) => t.name === 'slow__sleep'),
    );
    const running = client
      .callTool({ name: 'slow__sleep', arguments: { ms: 60_000 } })
      .catch(() => undefined);
    await waitFor('the call running downstream', () =>
      events().some((e) => e.event === 'call' && e.tool === 'sleep'),
    );
    const closedAt = Date.now();
    const exited = new Promise<number>((resolve) => {
      const check = setInterval(() => {
        try {
          process.kill(pid, 0);
        } catch {
          clearInterval(check);
          resolve(Date.now() - closedAt);
        }
      }, 20);
    });
    // Closing the transport ends the gateway's stdin (and only later signals a process that stays).
    await client.close();
    const exitMs = await exited;
    expect(events().some((e) => e.event === 'aborted' && e.tool === 'sleep')).toBe(true);
    // It ended because its stdin closed (not the client's SIGTERM that follows a process that stays).
    expect(stderr).toMatch(/"signal":"stdin-closed"/);
    expect(stderr).not.toMatch(/"signal":"SIGTERM"/);
    await running;
    console.log(`gateway exited ${exitMs} ms after the client closed its stdin`);
  }, 60_000);
});
