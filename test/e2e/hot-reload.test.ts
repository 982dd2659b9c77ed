import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { referenceServerBin } from '../support/fixture-servers.js';
import {
  CLI,
  connectHttp,
  type DisposableClient,
  type RunningGateway,
  startHttpGateway,
} from './gateway-process.js';

/**
 * Hot reload, end to end: the built CLI serving real downstream servers — stdio ones from npm and
 * an HTTP one (a second gateway) — whose config file is edited while an MCP session is open.
 */

const exec = promisify(execFile);

const EVERYTHING = referenceServerBin('server-everything');
const MEMORY = referenceServerBin('server-memory');
const FILESYSTEM = referenceServerBin('server-filesystem');
const q = (value: string) => JSON.stringify(value);

/** A process by pid and start time (a reused pid has another start time). */
interface Proc {
  pid: number;
  start: string;
  cmdline: string;
}

function readProc(pid: number): (Proc & { ppid: number }) | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (rest[0] === 'Z') return undefined;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    return { pid, ppid: Number(rest[1]), start: rest[19] ?? '', cmdline };
  } catch {
    return undefined;
  }
}

/** The live descendants of `root` whose command line mentions `needle`. */
function processesOf(root: number, needle: string): Proc[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => readProc(Number(name)) ?? []);
  const tree = new Set([root]);
  const found: Proc[] = [];
  let grew = true;
  while (grew) {
    grew = false;
    for (const proc of all) {
      if (tree.has(proc.ppid) && !tree.has(proc.pid)) {
        tree.add(proc.pid);
        found.push(proc);
        grew = true;
      }
    }
  }
  return found.filter((proc) => proc.cmdline.includes(needle));
}

/** How many inotify instances `pid` holds (how Node watches files on Linux; nothing else in it uses one). */
function inotifyInstances(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`) === 'anon_inode:inotify';
    } catch {
      return false;
    }
  }).length;
}

function alive(proc: Proc): boolean {
  const now = readProc(proc.pid);
  return now !== undefined && now.start === proc.start;
}

interface Listed {
  names: string[];
  description: (name: string) => string | undefined;
}

async function listTools(client: DisposableClient): Promise<Listed> {
  const { tools } = await client.listTools();
  return {
    names: tools.map((tool) => tool.name),
    description: (name) => tools.find((tool) => tool.name === name)?.description,
  };
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

describe('hot reload: editing the config file of a running gateway', { timeout: 120_000 }, () => {
  let dir: string;
  let config: string;
  let peer: RunningGateway;
  let gateway: RunningGateway;
  let client: DisposableClient;
  let listChanged = 0;

  /** The config: `servers` lines, the override of everything:echo. */
  const write = (servers: string[], echoDescription: string, extra: string[] = []) =>
    writeFile(
      config,
      [
        'tools: { builtin: false }',
        'exposure: flat',
        'startup: { waitMs: 30000 }',
        'servers:',
        ...servers,
        'overrides:',
        `  "everything:echo": { description: ${q(echoDescription)} }`,
        ...extra,
      ].join('\n'),
    );
  // Unsandboxed: the test finds its process by command line (a sandbox adds bubblewrap's two).
  const everything = `  everything: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio], sandbox: off }`;
  const memory = () =>
    `  memory: { command: ${q(process.execPath)}, args: [${q(MEMORY)}], env: { MEMORY_FILE_PATH: ${q(path.join(dir, 'memory.jsonl'))} }, sandbox: { filesystem: { write: [${q(dir)}] } } }`;
  const files = () =>
    `  files: { command: ${q(process.execPath)}, args: [${q(FILESYSTEM)}, ${q(path.join(dir, 'files'))}] }`;
  const remote = () => `  peer: { url: ${q(`${peer.url}/mcp`)} }`;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-reload-'));
    await mkdir(path.join(dir, 'files'));
    const peerConfig = path.join(dir, 'peer.yaml');
    await writeFile(peerConfig, ['tools: { builtin: true }', 'exposure: flat'].join('\n'));
    peer = await startHttpGateway(['--config', peerConfig]);
    config = path.join(dir, 'aperture.yaml');
    await write([everything, memory(), remote()], 'Echo, first wording');
    gateway = await startHttpGateway(['--config', config, '--log-format', 'json']);
    client = await connectHttp(gateway.url);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    await vi.waitFor(
      async () => {
        const { names } = await listTools(client);
        expect(names).toContain('everything__echo');
        expect(names.some((name) => name.startsWith('memory__'))).toBe(true);
        expect(names.some((name) => name.startsWith('peer__'))).toBe(true);
      },
      { timeout: 60_000, interval: 200 },
    );
  });

  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    await gateway?.[Symbol.asyncDispose]();
    await peer?.[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('adds a server, removes another and changes an override; the session stays, unchanged servers keep their processes', async () => {
    // The file is watched (the --no-watch test below checks the opposite the same way).
    expect(inotifyInstances(gateway.child.pid!)).toBeGreaterThan(0);
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId;
    const before = await listTools(client);
    expect(before.description('everything__echo')).toBe('Echo, first wording');
    const [everythingProc] = processesOf(gateway.child.pid!, EVERYTHING);
    const [memoryProc] = processesOf(gateway.child.pid!, MEMORY);
    expect(everythingProc, 'the everything server runs').toBeDefined();
    expect(memoryProc, 'the memory server runs').toBeDefined();
    const notified = listChanged;

    await write([everything, files(), remote()], 'Echo, second wording');

    await vi.waitFor(
      async () => {
        const after = await listTools(client);
        expect(after.names.some((name) => name.startsWith('files__'))).toBe(true);
        expect(after.names.some((name) => name.startsWith('memory__'))).toBe(false);
        expect(after.description('everything__echo')).toBe('Echo, second wording');
      },
      { timeout: 60_000, interval: 200 },
    );
    // The open session was told, and is the same session.
    expect(listChanged).toBeGreaterThan(notified);
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBe(sessionId);
    // The unchanged stdio server is the very same process; the removed one is gone.
    expect(alive(everythingProc!)).toBe(true);
    expect(processesOf(gateway.child.pid!, EVERYTHING).map((p) => p.pid)).toEqual([everythingProc!.pid]);
    await vi.waitFor(() => expect(alive(memoryProc!)).toBe(false), { timeout: 10_000 });
    // Calls keep working on the session: the unchanged stdio server, the HTTP one, the added one.
    const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'still here' } });
    expect(textOf(echo)).toContain('still here');
    const after = await listTools(client);
    const time = after.names.find((name) => name.startsWith('peer__') && name.includes('now'));
    expect(time, after.names.join(', ')).toBeDefined();
    const now = await client.callTool({ name: time!, arguments: {} });
    expect(now.isError).not.toBe(true);
    await writeFile(path.join(dir, 'files', 'note.txt'), 'written before the reload');
    const read = await client.callTool({
      name: 'files__read_text_file',
      arguments: { path: path.join(dir, 'files', 'note.txt') },
    });
    expect(textOf(read)).toContain('written before the reload');
    // The log says what changed, once.
    const reloads = gateway
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"config reloaded"'))
      .map((line) => JSON.parse(line) as Record<string, any>);
    expect(reloads.at(-1)).toMatchObject({
      trigger: 'watch',
      servers: { added: ['files'], removed: ['memory'], changed: [] },
      overrides: { changed: ['everything:echo'] },
    });
  });

  it('refuses a broken edit as a whole with the message config validate prints, and keeps serving the old config', async () => {
    const before = await listTools(client);
    const [everythingProc] = processesOf(gateway.child.pid!, EVERYTHING);
    // A valid change (the override) together with a broken one (an unknown key): nothing applies.
    await write([everything, files(), remote()], 'Echo, third wording', ['serverz: {}']);
    const validate = await exec(process.execPath, [CLI, 'config', 'validate', config]).catch(
      (error: { stderr: string }) => error,
    );
    const printed = /aperture: (config_invalid: .*)/.exec(validate.stderr)?.[1];
    expect(printed, validate.stderr).toBeDefined();

    await vi.waitFor(() => expect(gateway.stderr()).toContain('config reload refused'), { timeout: 30_000 });
    const refusals = gateway
      .stderr()
      .split('\n')
      .filter((line) => line.includes('config reload refused'))
      .map((line) => JSON.parse(line) as { msg: string });
    expect(refusals).toHaveLength(1);
    expect(refusals[0]?.msg).toContain(printed!);

    // The admin API gives the same answer, and the running config is untouched.
    const res = await fetch(`${gateway.url}/api/admin/reload`, {
      method: 'POST',
      headers: { 'x-aperture-request': '1' },
    });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'config_invalid' } });
    const after = await listTools(client);
    expect(after.names).toEqual(before.names);
    expect(after.description('everything__echo')).toBe('Echo, second wording');
    expect(alive(everythingProc!)).toBe(true);
    const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'old config' } });
    expect(textOf(echo)).toContain('old config');

    // Fixed, it applies.
    await write([everything, files(), remote()], 'Echo, third wording');
    await vi.waitFor(
      async () =>
        expect((await listTools(client)).description('everything__echo')).toBe('Echo, third wording'),
      { timeout: 30_000, interval: 200 },
    );
  });
});

describe('hot reload: --no-watch, SIGHUP and the admin API with auth', { timeout: 120_000 }, () => {
  let dir: string;
  let config: string;
  let gateway: RunningGateway;
  const ADMIN = 'admin-key-0123456789abcdef';
  const USER = 'user-key-0123456789abcdef';

  const write = (servers: string[]) =>
    writeFile(
      config,
      [
        'tools: { builtin: true }',
        'auth:',
        '  apiKeys:',
        `    - { name: ops, key: ${q(ADMIN)}, admin: true }`,
        `    - { name: dev, key: ${q(USER)} }`,
        'servers:',
        ...(servers.length > 0 ? servers : ['  {}']),
      ].join('\n'),
    );
  const reload = (key?: string) =>
    fetch(`${gateway.url}/api/admin/reload`, {
      method: 'POST',
      headers: key ? { authorization: `Bearer ${key}` } : {},
    });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-reload-'));
    config = path.join(dir, 'aperture.yaml');
    await write([]);
    gateway = await startHttpGateway(['--config', config, '--no-watch', '--log-format', 'json']);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('takes an admin identity: 401 without credentials, 403 for another key', async () => {
    expect((await reload()).status).toBe(401);
    const forbidden = await reload(USER);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ success: false, error: { code: 'forbidden' } });
    const allowed = await reload(ADMIN);
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toMatchObject({ success: true, result: { changed: false } });
  });

  it('does not watch the file with --no-watch; SIGHUP applies an edit', async () => {
    expect(inotifyInstances(gateway.child.pid!)).toBe(0);
    await write([`  everything: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio] }`]);
    gateway.child.kill('SIGHUP');
    await vi.waitFor(() => expect(gateway.stderr()).toContain('"config reloaded"'), { timeout: 30_000 });
    const reloads = gateway
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"config reloaded"'))
      .map((line) => JSON.parse(line) as Record<string, any>);
    expect(reloads).toHaveLength(1);
    expect(reloads[0]).toMatchObject({ trigger: 'signal', servers: { added: ['everything'] } });
    const tools = await fetch(`${gateway.url}/api/tools?namespace=everything`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const body = (await tools.json()) as { tools: { id: string }[] };
    expect(body.tools.map((tool) => tool.id)).toContain('everything:echo');
  });
});
