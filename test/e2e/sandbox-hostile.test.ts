import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectSandboxEngine } from '../../src/foundation/sandbox/sandbox-engine.js';
import { waitFor } from '../support/fixture-servers.js';
import { CLI, connectHttp, type DisposableClient, stopProcess } from './gateway-process.js';

/*
 * A hostile stdio server (test/fixtures/hostile-server) behind `aperture serve`, driven through the
 * official SDK client, with the gateway's HOME in a temporary folder full of fake credentials:
 * what it may read, write, reach and see, and what is left of it after `kill -9` of the gateway.
 */

const HOSTILE = path.resolve(import.meta.dirname, '../fixtures/hostile-server/server.mjs');
const engine = detectSandboxEngine();
const SKIP_REASON = engine.available ? '' : ` (skipped: ${engine.reason})`;

interface Gateway {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

async function startGateway(dir: string, env: Record<string, string>): Promise<Gateway> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--config', 'aperture.yaml'], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${stderr}`)), 20_000);
    const look = (): void => {
      const match = /listening on (http:\/\/\S+)\/mcp/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stderr?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${stderr}`));
    });
  });
  await waitFor('the gateway to be ready', async () => (await fetch(`${url}/readyz`)).ok, 30_000);
  return { url, child, stderr: () => stderr };
}

/** A loopback HTTP server standing in for a remote host: answers with its name and the Authorization it got. */
async function standIn(name: string): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    res.end(`${name} auth=${req.headers.authorization ?? '-'}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

/** Processes on the host whose command line contains `marker`. */
function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) found.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return found;
}

describe.skipIf(!engine.available)(`a hostile stdio server in the sandbox${SKIP_REASON}`, () => {
  let dir: string;
  let home: string;
  let granted: string;
  let outside: string;
  let gateway: Gateway;
  let client: DisposableClient;
  let allowed: { server: Server; port: number };
  let other: { server: Server; port: number };
  const REAL_TOKEN = 'real-token-4f7c2a9e1b';
  const GATEWAY_SECRET = 'gateway-only-secret-93ab51';

  const call = async (tool: string, args: Record<string, unknown> = {}) =>
    textOf(await client.callTool({ name: tool, arguments: args }));

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-sandbox-e2e-'));
    home = path.join(dir, 'home');
    granted = path.join(dir, 'granted');
    outside = path.join(dir, 'outside');
    await mkdir(path.join(home, '.ssh'), { recursive: true });
    await mkdir(path.join(home, '.aws'), { recursive: true });
    await mkdir(granted);
    await mkdir(outside);
    await writeFile(path.join(home, '.ssh', 'id_ed25519'), 'FAKE-SSH-PRIVATE-KEY');
    await writeFile(path.join(home, '.aws', 'credentials'), 'aws_secret_access_key = FAKE-AWS');
    await writeFile(path.join(home, '.netrc'), 'machine example.com password FAKE-NETRC');
    allowed = await standIn('allowed');
    other = await standIn('other');
    const hostile = (more: string[]) => [
      `    command: "${process.execPath}"`,
      `    args: ["${HOSTILE}"]`,
      ...more,
    ];
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'tools: { builtin: false }',
        'state: { driver: memory }',
        'exposure: flat',
        'sandbox: { audit: refused }',
        'servers:',
        '  hostile:',
        ...hostile([`    sandbox: { filesystem: { write: ["${granted}"] } }`]),
        '  allowlisted:',
        ...hostile([
          `    env: { HOSTILE_TOKEN: "\${env:HOSTILE_REAL_TOKEN}" }`,
          '    sandbox:',
          `      network: { allow: ["127.0.0.1:${allowed.port}"] }`,
          `      secrets: { HOSTILE_TOKEN: { hosts: ["127.0.0.1:${allowed.port}"] } }`,
        ]),
        '  offline:',
        ...hostile(['    sandbox: { network: none }']),
        '  limited:',
        ...hostile(['    sandbox: { limits: { cpuSeconds: 1, memoryMb: 400 } }']),
        '  hungry:',
        ...hostile(['    sandbox: { limits: { memoryMb: 150 } }']),
      ].join('\n'),
    );
    gateway = await startGateway(dir, {
      HOME: home,
      HOSTILE_REAL_TOKEN: REAL_TOKEN,
      GATEWAY_ONLY_SECRET: GATEWAY_SECRET,
    });
    client = await connectHttp(gateway.url);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    if (gateway) await stopProcess(gateway.child);
    allowed?.server.close();
    other?.server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('cannot read credential files of the gateway user', async () => {
    // Sanity: the files are there and readable from outside.
    expect(await readFile(path.join(home, '.ssh', 'id_ed25519'), 'utf8')).toContain('FAKE');
    for (const file of ['.ssh/id_ed25519', '.aws/credentials', '.netrc']) {
      const seen = await call('hostile__read_path', { path: path.join(home, file) });
      expect(seen, file).not.toContain('FAKE');
    }
    expect(await call('hostile__read_path', { path: path.join(dir, 'aperture.yaml') })).not.toContain(
      'servers',
    );
  });

  it('writes inside the granted directory and its scratch directory, nowhere else', async () => {
    expect(await call('hostile__write_path', { path: path.join(granted, 'ok.txt'), text: 'inside' })).toBe(
      'written',
    );
    expect(await readFile(path.join(granted, 'ok.txt'), 'utf8')).toBe('inside');
    const refused = await call('hostile__write_path', { path: path.join(outside, 'nope.txt'), text: 'x' });
    expect(refused).toMatch(/^error: (EROFS|EACCES|EPERM)/);
    expect(await call('hostile__write_path', { path: path.join(home, 'planted'), text: 'x' })).toMatch(
      /^error:/,
    );
    const scratch = await call('hostile__env_var', { name: 'HOME' });
    expect(await call('hostile__write_path', { path: path.join(scratch, 'cache'), text: 'x' })).toBe(
      'written',
    );
  });

  it("sees none of the gateway's environment, neither in its own nor through /proc", async () => {
    expect(await call('hostile__env_var', { name: 'GATEWAY_ONLY_SECRET' })).toBe('(unset)');
    expect(await call('hostile__env_var', { name: 'HOSTILE_REAL_TOKEN' })).toBe('(unset)');
    const gatewayPid = gateway.child.pid as number;
    expect(await call('hostile__read_environ', { pid: gatewayPid })).not.toContain(GATEWAY_SECRET);
    for (const pid of ['1', '2', 'self']) {
      expect(await call('hostile__read_environ', { pid })).not.toContain(GATEWAY_SECRET);
    }
  });

  it('reaches an allowed host:port through the egress proxy; another port is refused, logged and counted', async () => {
    const first = await call('allowlisted__fetch_url', { url: `http://127.0.0.1:${allowed.port}/x` });
    expect(first).toMatch(/^200 allowed/);
    const refused = await call('allowlisted__fetch_url', { url: `http://127.0.0.1:${other.port}/x` });
    expect(refused).toMatch(/^403 /);
    await waitFor('the refusal in the log', () => gateway.stderr().includes('sandbox refused a connection'));
    const line = gateway
      .stderr()
      .split('\n')
      .find((entry) => entry.includes('sandbox refused a connection'));
    expect(line).toContain('allowlisted');
    expect(line).toContain(`127.0.0.1:${other.port}`);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain(
      `sandbox_egress_total{server="allowlisted",host="127.0.0.1:${other.port}",decision="refused"} 1`,
    );
  });

  it('gives a bound secret only to its host: the server sees a placeholder', async () => {
    const seen = await call('allowlisted__env_var', { name: 'HOSTILE_TOKEN' });
    expect(seen).not.toContain(REAL_TOKEN);
    expect(seen).toMatch(/^aperture-sandbox-secret-HOSTILE_TOKEN-/);
    const answer = await call('allowlisted__fetch_url', { url: `http://127.0.0.1:${allowed.port}/api` });
    expect(answer).toBe(`200 allowed auth=Bearer ${REAL_TOKEN}`);
  });

  it('with network: none reaches neither port', async () => {
    for (const port of [allowed.port, other.port]) {
      expect(await call('offline__fetch_url', { url: `http://127.0.0.1:${port}/` })).toMatch(
        /^error: ECONNREFUSED/,
      );
    }
    // The default (open) network reaches the host's loopback.
    expect(await call('hostile__fetch_url', { url: `http://127.0.0.1:${other.port}/` })).toMatch(
      /^200 other/,
    );
  });

  it('a server over its CPU limit fails with backend_unavailable naming the limit; the gateway keeps serving', async () => {
    const result = await client.callTool({ name: 'limited__burn', arguments: { seconds: 20 } });
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('backend_unavailable');
    expect(error.message).toContain('cpuSeconds');
    expect(await call('hostile__env_var', { name: 'LANG' })).not.toBe('');
  });

  it('a server over its memory limit fails with backend_unavailable naming memoryMb', async () => {
    const result = await client.callTool({ name: 'hungry__hog', arguments: { mb: 400 } });
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('backend_unavailable');
    expect(error.message).toMatch(/memoryMb \(used \d+ MiB, limit 150 MiB\)/);
  });

  it('/readyz says how each server is sandboxed', async () => {
    const ready = (await (await fetch(`${gateway.url}/readyz`)).json()) as {
      sources: { id: string; sandbox?: { engine: string; network: unknown; writable: string[] } }[];
    };
    const byId = new Map(ready.sources.map((source) => [source.id, source.sandbox]));
    expect(byId.get('mcp:hostile')?.engine).toBe('bwrap');
    expect(byId.get('mcp:hostile')?.writable).toContain(granted);
    expect(byId.get('mcp:offline')?.network).toBe('none');
    expect(byId.get('mcp:allowlisted')?.network).toEqual([`127.0.0.1:${allowed.port}`]);
  });
});

describe.skipIf(!engine.available)(`aperture doctor shows how each server is sandboxed${SKIP_REASON}`, () => {
  it('names the engine, the network and the writable paths, args directories included', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-sandbox-doctor-'));
    const shared = path.join(dir, 'shared');
    await mkdir(shared);
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'servers:',
        '  files:',
        `    command: "${process.execPath}"`,
        `    args: ["${HOSTILE}", "${shared}"]`,
        '    sandbox: { network: none }',
        '  open:',
        `    command: "${process.execPath}"`,
        `    args: ["${HOSTILE}"]`,
        '    sandbox: off',
      ].join('\n'),
    );
    try {
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          [CLI, 'doctor', '--json', '--config', 'aperture.yaml'],
          { cwd: dir },
          (error, out) => (error ? reject(error) : resolve(out)),
        ),
      );
      const report = JSON.parse(stdout) as {
        servers: {
          name: string;
          notes: string[];
          sandbox?: { engine: string; network: unknown; writable: string[] };
        }[];
      };
      const files = report.servers.find((server) => server.name === 'files');
      expect(files?.sandbox).toMatchObject({ engine: 'bwrap', network: 'none' });
      expect(files?.sandbox?.writable).toContain(shared);
      expect(files?.notes.join(' ')).toMatch(
        new RegExp(`sandbox: bwrap, network none, writable .*${shared}`),
      );
      const open = report.servers.find((server) => server.name === 'open');
      expect(open?.sandbox).toMatchObject({ engine: 'none', reason: 'sandbox: off in the config' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(!engine.available)(
  `\`kill -9\` of the gateway ends every sandboxed process${SKIP_REASON}`,
  () => {
    it('leaves no process of the server behind, not even one that left its session', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'aperture-sandbox-kill-'));
      const marker = `hostile-marker-${process.pid}-${Date.now()}`;
      await writeFile(
        path.join(dir, 'aperture.yaml'),
        [
          'tools: { builtin: false }',
          'state: { driver: memory }',
          'exposure: flat',
          'servers:',
          '  hostile:',
          `    command: "${process.execPath}"`,
          `    args: ["${HOSTILE}", "${marker}"]`,
        ].join('\n'),
      );
      const gateway = await startGateway(dir, {});
      const client = await connectHttp(gateway.url);
      try {
        await client.callTool({ name: 'hostile__spawn_orphan', arguments: {} });
        await client.callTool({ name: 'hostile__spawn_orphan', arguments: {} });
        // The marker is in the command lines of bubblewrap, the server and both orphans.
        await waitFor('the server processes', () => hostProcessesWith(marker).length >= 4);
        await client.close().catch(() => {});
        gateway.child.kill('SIGKILL');
        await waitFor('every sandboxed process gone', () => hostProcessesWith(marker).length === 0, 10_000);
        expect(hostProcessesWith(marker)).toEqual([]);
      } finally {
        if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
        await rm(dir, { recursive: true, force: true });
      }
    }, 60_000);
  },
);
