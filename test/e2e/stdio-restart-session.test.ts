import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/fixture-servers.js';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

/*
 * A stdio server killed and restarted mid-session, end to end: `aperture serve` with the reference
 * `everything` server over stdio, and the official SDK client with one open session subscribed
 * to a resource. The server process is SIGKILLed; the gateway starts it again; the same client
 * session goes on (no new initialize), and its subscription, asked of the new process again,
 * still delivers updates.
 */

const pkg = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything');
const manifest = JSON.parse(readFileSync(path.join(pkg, 'package.json'), 'utf8')) as {
  bin: string | Record<string, string>;
};
const EVERYTHING = path.join(
  pkg,
  typeof manifest.bin === 'string' ? manifest.bin : (Object.values(manifest.bin)[0] as string),
);

/** The pids of `pid`'s child processes. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

describe('a stdio server killed and restarted inside a live client session', () => {
  let dir: string;
  let gateway: RunningGateway;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-stdio-restart-'));
    const q = (value: string) => JSON.stringify(value);
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'tools: { builtin: false }',
        'servers:',
        `  ev: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio] }`,
        'exposure: flat',
        'observability: { logLevel: warn }',
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', 'aperture.yaml'], dir);
  }, 60_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('goes on in the same session, and the resource subscription still delivers updates', async () => {
    const updated: string[] = [];
    const client = new Client({ name: 'stdio-restart-e2e', version: '1.0.0' });
    client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`));
    await client.connect(transport);
    const sessionId = transport.sessionId;
    try {
      await waitFor(
        'the server’s tools',
        async () =>
          (await client.listTools()).tools.some((t) => t.name.endsWith('toggle-subscriber-updates')),
        20_000,
      );
      const toggle = (await client.listTools()).tools.find((t) =>
        t.name.endsWith('toggle-subscriber-updates'),
      )?.name as string;
      const { resources } = await client.listResources();
      const uri = resources[0]?.uri as string;
      expect(uri).toBeTruthy();
      await client.subscribeResource({ uri });

      const [pid] = childrenOf(gateway.child.pid as number);
      expect(pid, 'the stdio server process').toBeGreaterThan(0);
      process.kill(pid as number, 'SIGKILL');
      // The gateway starts it again: a new process, and the session's calls reach it.
      await waitFor(
        'a new server process answering',
        async () => {
          const now = childrenOf(gateway.child.pid as number);
          if (now.length === 0 || now.includes(pid as number)) return false;
          const result = await client.callTool({ name: toggle, arguments: {} }).catch(() => undefined);
          return result !== undefined && !result.isError;
        },
        20_000,
      );
      // Updates were switched on in the new process: the re-established subscription brings them.
      await waitFor('an update of the subscribed resource', () => updated.includes(uri), 15_000);
      expect(transport.sessionId).toBe(sessionId);
    } finally {
      await client.close().catch(() => {});
    }
  }, 90_000);
});
