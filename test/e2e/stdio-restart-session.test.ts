import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerBin, waitFor } from '../support/fixture-servers.js';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

/*
 * A stdio server killed and restarted mid-session, end to end: `aperture serve` with the reference
 * `everything` server over stdio, and the official SDK client with one open session subscribed
 * to a resource and its log level set. The server processes are SIGKILLed; the gateway starts
 * them again; the same client session goes on (no new initialize), its subscription, asked of the
 * new process again, still delivers updates, and its log level reaches the new process of a
 * server that tells the level it was set to (`test/fixtures/federation/log-level-server.mjs`).
 */

const EVERYTHING = referenceServerBin('server-everything');

const LEVELS = path.join(ROOT, 'test/fixtures/federation/log-level-server.mjs');

/** The command line of process `pid` ('' once it is gone). */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

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
        `  lv: { command: ${q(process.execPath)}, args: [${q(LEVELS)}] }`,
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

  it('goes on in the same session; the resource subscription still delivers updates, the log level is set again', async () => {
    const updated: string[] = [];
    const client = new Client({ name: 'stdio-restart-e2e', version: '1.0.0' });
    client.setNotificationHandler('notifications/resources/updated', (n) => void updated.push(n.params.uri));
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`));
    await client.connect(transport);
    const sessionId = transport.sessionId;
    try {
      await waitFor(
        'the servers’ tools',
        async () => {
          const names = (await client.listTools()).tools.map((t) => t.name);
          return (
            names.includes('lv__current_level') && names.some((n) => n.endsWith('toggle-subscriber-updates'))
          );
        },
        20_000,
      );
      const level = async () => {
        const result = await client.callTool({ name: 'lv__current_level', arguments: {} });
        return (result.content as { type: string; text?: string }[])[0]?.text;
      };
      expect(await level()).toBe('unset');
      await client.setLoggingLevel('warning');
      expect(await level()).toBe('warning');
      const toggle = (await client.listTools()).tools.find((t) =>
        t.name.endsWith('toggle-subscriber-updates'),
      )?.name as string;
      const { resources } = await client.listResources();
      const uri = resources[0]?.uri as string;
      expect(uri).toBeTruthy();
      await client.subscribeResource({ uri });

      const before = childrenOf(gateway.child.pid as number);
      const pid = before.find((child) => commandOf(child).includes('server-everything'));
      const levelsPid = before.find((child) => commandOf(child).includes('log-level-server'));
      expect(pid, 'the stdio server process').toBeGreaterThan(0);
      expect(levelsPid, 'the log level server process').toBeGreaterThan(0);
      process.kill(pid as number, 'SIGKILL');
      process.kill(levelsPid as number, 'SIGKILL');
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
      // A new process of the level server, told the session's level again (it starts unset).
      await waitFor(
        'a new log level server process',
        () =>
          childrenOf(gateway.child.pid as number).some(
            (child) => child !== levelsPid && commandOf(child).includes('log-level-server'),
          ),
        20_000,
      );
      // Its first answer (a call during the restart may answer backend_unavailable instead).
      let answered: string | undefined;
      await waitFor(
        'the level server answering',
        async () => {
          const text = await level().catch(() => undefined);
          if (text === 'unset' || text === 'warning') answered = text;
          return answered !== undefined;
        },
        20_000,
      );
      expect(answered).toBe('warning');
      expect(transport.sessionId).toBe(sessionId);
    } finally {
      await client.close().catch(() => {});
    }
  }, 90_000);
});
