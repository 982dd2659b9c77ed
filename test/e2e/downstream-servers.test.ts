import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  type Tool as McpTool,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerBin } from '../support/fixture-servers.js';
import {
  connectHttp,
  connectStdio,
  type DisposableClient,
  ROOT,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';

/**
 * The gateway aggregating real downstream MCP servers (the reference servers "everything",
 * "memory" and "filesystem", started with `node` on their package bins), driven through the built
 * CLI and the official SDK client: flat and metatools exposure, the flat passthrough of resources,
 * prompts, completions, logging and progress, server→client requests relayed to the right session,
 * cancellation, and no orphaned processes when the gateway stops.
 */

const EVERYTHING = referenceServerBin('server-everything');
const MEMORY = referenceServerBin('server-memory');
const FILESYSTEM = referenceServerBin('server-filesystem');
const FAULTY = path.join(ROOT, 'test/fixtures/mcp/faulty-server.mjs');
/** What the gateway's shared downstream connection declares (DownstreamServer's SHARED_CAPABILITIES). */
const GATEWAY_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: {} };

interface Sandbox {
  dir: string;
  /** The directory the filesystem server may touch. */
  files: string;
  memoryFile: string;
  /** Where the faulty fixture server records its events (FAULTY_MARK_FILE). */
  markFile: string;
  config: string;
}

/** A temp dir with a config aggregating the three servers (and optionally the faulty fixture). */
async function sandbox(exposure: string, options: { faulty?: boolean } = {}): Promise<Sandbox> {
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-downstream-'));
  const files = path.join(dir, 'files');
  await mkdir(files);
  const memoryFile = path.join(dir, 'memory.jsonl');
  const markFile = path.join(dir, 'faulty-marks.jsonl');
  const q = (value: string) => JSON.stringify(value);
  const lines = [
    'tools: { builtin: false }',
    'servers:',
    // Unsandboxed here: tests below count its processes (a sandbox adds bubblewrap's two). The
    // other servers run in the default sandbox; test/e2e/sandbox-*.test.ts covers confinement.
    `  everything: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio], sandbox: off }`,
    // It writes its file outside its scratch directory: granted (the sandbox is on by default).
    `  memory: { command: ${q(process.execPath)}, args: [${q(MEMORY)}], env: { MEMORY_FILE_PATH: ${q(memoryFile)} }, sandbox: { filesystem: { write: [${q(dir)}] } } }`,
    `  files: { command: ${q(process.execPath)}, args: [${q(FILESYSTEM)}, ${q(files)}] }`,
    ...(options.faulty
      ? [
          // It reports host pids of the children it spawns: unconfined (see fixture-servers.ts).
          `  faulty: { command: ${q(process.execPath)}, args: [${q(FAULTY)}], env: { FAULTY_MARK_FILE: ${q(markFile)} }, sandbox: off }`,
        ]
      : []),
    `exposure: ${exposure}`,
    'overrides:',
    '  "files:read_text_file": { name: read, description: "Read a text file of the sandbox (renamed by an override)." }',
    'execution: { timeoutMs: 30000 }',
    'observability: { logLevel: warn }',
  ];
  const config = path.join(dir, 'aperture.yaml');
  await writeFile(config, `${lines.join('\n')}\n`);
  return { dir, files, memoryFile, markFile, config };
}

interface ReadySource {
  id: string;
  kind: string;
  state: string;
  tools: number;
  transport?: string;
  lastError?: { code: string; message: string };
}
interface Readiness {
  ready: boolean;
  tools: number;
  sources: ReadySource[];
}

/** Polls `/readyz` until it answers 200 (503 meanwhile); returns its body. */
async function waitReady(url: string, timeoutMs = 20_000): Promise<Readiness> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${url}/readyz`);
    const body = (await res.json()) as Readiness;
    if (res.status === 200) return body;
    expect(res.status).toBe(503);
    expect(body.ready).toBe(false);
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms: ${JSON.stringify(body)}`);
    await sleep(100);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value that is not undefined. */
async function until<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  what: string,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Lists a server's tools directly (no gateway), declaring what the gateway's shared connection does. */
async function listDirectly(args: string[], env: Record<string, string> = {}): Promise<McpTool[]> {
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const client = new Client({ name: 'direct', version: '1.0.0' }, { capabilities: GATEWAY_CAPABILITIES });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'pipe',
    }),
  );
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

/** An HTTP client declaring `capabilities`; `setup` registers its handlers before `initialize`. */
async function connectHttpWith(
  url: string,
  name: string,
  capabilities: ClientCapabilities,
  setup: (client: Client) => void = () => {},
): Promise<DisposableClient> {
  const client = new Client({ name, version: '1.0.0' }, { capabilities });
  setup(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return Object.assign(client, {
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  });
}

const textOf = (result: unknown): string =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((c) => c.text ?? '')
    .join('\n');

// ---------------------------------------------------------------------------------------------
// Processes: the gateway's descendants, read from /proc (Linux).

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  /** Start time in clock ticks since boot: a reused pid has another one. */
  start: string;
}

function readStat(pid: number): ProcInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // `comm` (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, ppid: Number(rest[1]), state: rest[0] ?? '?', start: rest[19] ?? '' };
}

/** Every live descendant of `root` (children, grandchildren, …). */
function descendants(root: number): ProcInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((p): p is ProcInfo => p !== undefined && p.state !== 'Z');
  const found: ProcInfo[] = [];
  const parents = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const proc of all) {
      if (parents.has(proc.ppid) && !parents.has(proc.pid)) {
        parents.add(proc.pid);
        found.push(proc);
        grew = true;
      }
    }
  }
  return found;
}

/** True while the very process recorded in `info` runs (a zombie counts as gone). */
function alive(info: ProcInfo): boolean {
  const now = readStat(info.pid);
  return now !== undefined && now.start === info.start && now.state !== 'Z';
}

function describeProcs(procs: ProcInfo[]): string {
  return procs
    .map((p) => {
      try {
        return `${p.pid} ${readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').replaceAll('\0', ' ')}`;
      } catch {
        return `${p.pid} (gone)`;
      }
    })
    .join('\n');
}

/** Resolves with the exit of `child`, or undefined when it has not exited within `ms`. */
function exitWithin(
  child: ChildProcess,
  ms: number,
): Promise<{ code: number | null; signal: string | null } | undefined> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** Last-resort cleanup after a failed assertion: SIGKILL what is left of processes we caused. */
function killLeftovers(procs: ProcInfo[]): void {
  for (const proc of procs) {
    if (!alive(proc)) continue;
    try {
      process.kill(proc.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

// ---------------------------------------------------------------------------------------------

describe('downstream MCP servers in flat exposure (HTTP)', () => {
  let box: Sandbox;
  let gateway: RunningGateway;
  let ready: Readiness;
  let client: DisposableClient;

  beforeAll(async () => {
    box = await sandbox('flat');
    gateway = await startHttpGateway(['--config', box.config]);
    ready = await waitReady(gateway.url);
    client = await connectHttp(gateway.url);
  });

  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    await gateway?.[Symbol.asyncDispose]();
    if (box) await rm(box.dir, { recursive: true, force: true });
  });

  it('reports the three servers in /readyz with the tool counts they list directly', async () => {
    const [everything, memory, files] = await Promise.all([
      listDirectly([EVERYTHING, 'stdio']),
      listDirectly([MEMORY], { MEMORY_FILE_PATH: path.join(box.dir, 'direct-memory.jsonl') }),
      listDirectly([FILESYSTEM, box.files]),
    ]);
    expect(ready.ready).toBe(true);
    const byId = new Map(ready.sources.map((s) => [s.id, s]));
    expect([...byId.keys()].sort()).toEqual(['mcp:everything', 'mcp:files', 'mcp:memory']);
    for (const [id, direct] of [
      ['mcp:everything', everything],
      ['mcp:memory', memory],
      ['mcp:files', files],
    ] as const) {
      expect(byId.get(id), id).toMatchObject({ kind: 'mcp', state: 'connected', transport: 'stdio' });
      expect(byId.get(id)?.tools, id).toBe(direct.length);
      expect(byId.get(id)?.lastError, id).toBeUndefined();
    }
    expect(ready.tools).toBe(everything.length + memory.length + files.length);
  });

  it('lists every server tool under its flat name, with the override applied', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [
      'everything__echo',
      'everything__trigger-long-running-operation',
      'memory__create_entities',
      'memory__read_graph',
      'files__write_file',
      'files__read',
    ]) {
      expect(names).toContain(name);
    }
    expect(names).not.toContain('files__read_text_file');
    expect(names).not.toContain('search_tools');
    const read = tools.find((t) => t.name === 'files__read');
    expect(read?.description).toBe('Read a text file of the sandbox (renamed by an override).');
    expect(read?.inputSchema.properties).toHaveProperty('path');
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tools).toHaveLength(ready.tools);
  });

  it('calls a tool of each server', async () => {
    const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'hi there' } });
    expect(echo.isError, textOf(echo)).toBeFalsy();
    expect(textOf(echo)).toBe('Echo: hi there');

    const created = await client.callTool({
      name: 'memory__create_entities',
      arguments: {
        entities: [{ name: 'Aperture', entityType: 'gateway', observations: ['aggregates MCP servers'] }],
      },
    });
    expect(created.isError, textOf(created)).toBeFalsy();
    const graph = await client.callTool({ name: 'memory__read_graph', arguments: {} });
    expect(graph.isError, textOf(graph)).toBeFalsy();
    expect(JSON.stringify(graph)).toContain('aggregates MCP servers');
    // The memory server was started with the env the config gave it.
    expect(await readFile(box.memoryFile, 'utf8')).toContain('Aperture');

    const target = path.join(box.files, 'note.txt');
    const written = await client.callTool({
      name: 'files__write_file',
      arguments: { path: target, content: 'written through the gateway' },
    });
    expect(written.isError, textOf(written)).toBeFalsy();
    expect(await readFile(target, 'utf8')).toBe('written through the gateway');
    const read = await client.callTool({ name: 'files__read', arguments: { path: target } });
    expect(read.isError, textOf(read)).toBeFalsy();
    expect(textOf(read)).toContain('written through the gateway');

    const outside = await client.callTool({ name: 'files__read', arguments: { path: '/etc/hostname' } });
    expect(outside.isError).toBe(true);
  });

  it('relays resources: list, read, templates, and a read routed by template', async () => {
    const { resources } = await client.listResources();
    expect(resources.length).toBeGreaterThan(0);
    const first = resources[0]!;
    const read = await client.readResource({ uri: first.uri });
    expect(read.contents.length).toBeGreaterThan(0);
    expect(read.contents[0]?.uri).toBe(first.uri);

    const { resourceTemplates } = await client.listResourceTemplates();
    const text = resourceTemplates.find((t) => t.uriTemplate.includes('dynamic/text'));
    // Several servers: URIs carry the namespace of theirs (test/e2e/flat-resources.test.ts).
    expect(text?.uriTemplate).toBe('aperture://everything/demo://resource/dynamic/text/{resourceId}');
    // The server's own form of a URI still reads.
    const dynamic = await client.readResource({ uri: 'demo://resource/dynamic/text/7' });
    expect(dynamic.contents[0]?.uri).toBe('demo://resource/dynamic/text/7');
    expect(JSON.stringify(dynamic.contents[0])).toMatch(/7/);
  });

  it('relays resource subscriptions: updates reach the subscribed session only', async () => {
    const updated: string[] = [];
    const elsewhere: string[] = [];
    await using subscriber = await connectHttpWith(gateway.url, 'subscriber', {}, (c) =>
      c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri)),
    );
    await using bystander = await connectHttpWith(gateway.url, 'bystander', {}, (c) =>
      c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void elsewhere.push(n.params.uri)),
    );
    const { resources } = await subscriber.listResources();
    const uri = resources[0]!.uri;
    // The bystander is a live flat session that knows the resource but did not subscribe.
    expect((await bystander.listResources()).resources.map((r) => r.uri)).toContain(uri);
    await subscriber.subscribeResource({ uri });
    const toggled = await subscriber.callTool({
      name: 'everything__toggle-subscriber-updates',
      arguments: {},
    });
    expect(toggled.isError, textOf(toggled)).toBeFalsy();
    try {
      // One round of updates is sent at once, then one every 5 s.
      await until(() => (updated.includes(uri) ? true : undefined), 7000, `an update of ${uri}`);
      await sleep(200);
      expect(elsewhere).toEqual([]);
    } finally {
      await subscriber.callTool({ name: 'everything__toggle-subscriber-updates', arguments: {} });
      await subscriber.unsubscribeResource({ uri });
    }
  });

  it('relays prompts (prefixed names) and completions', async () => {
    const { prompts } = await client.listPrompts();
    const names = prompts.map((p) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'everything__simple-prompt',
        'everything__args-prompt',
        'everything__completable-prompt',
      ]),
    );
    expect(names.every((n) => n.startsWith('everything__'))).toBe(true);

    const prompt = await client.getPrompt({
      name: 'everything__args-prompt',
      arguments: { city: 'Lisbon', state: 'Portugal' },
    });
    expect(JSON.stringify(prompt.messages)).toContain("What's weather in Lisbon, Portugal?");

    const departments = await client.complete({
      ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
      argument: { name: 'department', value: 'E' },
    });
    expect(departments.completion.values).toEqual(['Engineering']);
    const people = await client.complete({
      ref: { type: 'ref/prompt', name: 'everything__completable-prompt' },
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Sales' } },
    });
    expect(people.completion.values).toEqual(['David', 'Eve', 'Frank']);
  });

  it('forwards logging/setLevel and relays log messages', async () => {
    const messages: { level: string; data: unknown }[] = [];
    await using logged = await connectHttpWith(gateway.url, 'logging', {}, (c) =>
      c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params)),
    );
    await logged.setLoggingLevel('debug');
    const started = await logged.callTool({ name: 'everything__toggle-simulated-logging', arguments: {} });
    expect(textOf(started)).toMatch(/Started simulated/);
    try {
      // One message is sent at once, then one every 5 s.
      await until(() => (messages.length > 0 ? true : undefined), 7000, 'a notifications/message');
      expect(messages[0]?.data).toMatch(/-level message|level-message/);
    } finally {
      const stopped = await logged.callTool({ name: 'everything__toggle-simulated-logging', arguments: {} });
      expect(textOf(stopped)).toMatch(/Stopped simulated/);
    }
  });

  it("keeps each session's log level: a quieter session does not silence a verbose one", async () => {
    // The downstream connection is shared by every session: forwarding each session's
    // logging/setLevel as is would let the last session to set a level set it for all.
    // server-everything logs an `info` message for every resources/subscribe it receives, filtered
    // by the level set on its (shared) connection: a deterministic downstream log line.
    const verbose: string[] = [];
    await using chatty = await connectHttpWith(gateway.url, 'chatty', {}, (c) =>
      c.setNotificationHandler(
        LoggingMessageNotificationSchema,
        (n) => void verbose.push(String(n.params.data)),
      ),
    );
    await using quiet = await connectHttpWith(gateway.url, 'quiet', {}, () => {});
    await chatty.setLoggingLevel('debug');
    const first = 'demo://resource/dynamic/text/901';
    await chatty.subscribeResource({ uri: first });
    await until(
      () => (verbose.some((m) => m.includes(first)) ? true : undefined),
      3000,
      'the log of a subscribe',
    );

    await quiet.setLoggingLevel('emergency');
    const second = 'demo://resource/dynamic/text/902';
    await chatty.subscribeResource({ uri: second });
    try {
      await until(
        () => (verbose.some((m) => m.includes(second)) ? true : undefined),
        3000,
        'the info log of the second subscribe, after another session chose "emergency"',
      );
    } finally {
      await chatty.unsubscribeResource({ uri: first });
      await chatty.unsubscribeResource({ uri: second });
      await quiet.setLoggingLevel('debug');
    }
  });

  it('delivers progress notifications before the result', async () => {
    const seen: number[] = [];
    let seenAtResult = -1;
    const result = await client
      .callTool(
        { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.6, steps: 3 } },
        undefined,
        { onprogress: (p) => void seen.push(p.progress) },
      )
      .then((r) => {
        seenAtResult = seen.length;
        return r;
      });
    expect(textOf(result)).toContain('Long running operation completed');
    // The SDK client may drop the last progress when it arrives in one read with the result.
    expect(seenAtResult).toBeGreaterThanOrEqual(2);
    expect(seen.slice(0, 2)).toEqual([1, 2]);
  });

  it('relays sampling/createMessage to the client that made the call', async () => {
    await using sampler = await connectHttpWith(gateway.url, 'sampler', { sampling: {} }, (c) =>
      c.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        model: 'test-model',
        role: 'assistant',
        content: { type: 'text', text: `sampled: ${JSON.stringify(request.params.messages[0]?.content)}` },
      })),
    );
    const result = await sampler.callTool({
      name: 'everything__trigger-sampling-request',
      arguments: { prompt: 'say hello', maxTokens: 10 },
    });
    expect(result.isError, textOf(result)).toBeFalsy();
    expect(textOf(result)).toContain('LLM sampling result');
    expect(textOf(result)).toContain('sampled: ');
    expect(textOf(result)).toContain('say hello');
    expect(textOf(result)).toContain('test-model');

    // Calls of this session travel on its own downstream connection: progress still arrives.
    const seen: number[] = [];
    const long = await sampler.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 0.4, steps: 2 } },
      undefined,
      { onprogress: (p) => void seen.push(p.progress) },
    );
    expect(textOf(long)).toContain('completed');
    expect(seen[0]).toBe(1);
  });

  it('routes concurrent sampling requests of two sessions each to its own client', async () => {
    // Each handler waits until both were asked (or 3 s passed), so the two calls overlap downstream.
    let asked = 0;
    const barrier = async () => {
      asked++;
      const deadline = Date.now() + 3000;
      while (asked < 2 && Date.now() < deadline) await sleep(20);
    };
    const sampler = (answer: string) =>
      connectHttpWith(gateway.url, `sampler-${answer}`, { sampling: {} }, (c) =>
        c.setRequestHandler(CreateMessageRequestSchema, async () => {
          await barrier();
          return { model: `model-${answer}`, role: 'assistant', content: { type: 'text', text: answer } };
        }),
      );
    await using alice = await sampler('ANSWER-FROM-ALICE');
    await using bob = await sampler('ANSWER-FROM-BOB');
    const call = (client: Client, prompt: string) =>
      client.callTool({ name: 'everything__trigger-sampling-request', arguments: { prompt, maxTokens: 5 } });
    const [a, b] = await Promise.all([call(alice, 'from alice'), call(bob, 'from bob')]);
    expect(asked).toBe(2);
    expect(textOf(a)).toContain('ANSWER-FROM-ALICE');
    expect(textOf(a)).not.toContain('ANSWER-FROM-BOB');
    expect(textOf(b)).toContain('ANSWER-FROM-BOB');
    expect(textOf(b)).not.toContain('ANSWER-FROM-ALICE');
  });

  it('fails a sampling tool cleanly for a client that cannot sample', async () => {
    const result = await client.callTool({
      name: 'everything__trigger-sampling-request',
      arguments: { prompt: 'nobody will answer', maxTokens: 5 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/sampling|capabilit/i);
  });

  it('relays elicitation/create, concurrently, each session answering its own', async () => {
    const elicitor = (name: string) =>
      connectHttpWith(gateway.url, `elicitor-${name}`, { elicitation: {} }, (c) =>
        c.setRequestHandler(ElicitRequestSchema, async (request) => {
          expect(request.params.message).toMatch(/provide inputs/);
          await sleep(100);
          return { action: 'accept', content: { name, check: true } };
        }),
      );
    await using ada = await elicitor('Ada Lovelace');
    await using grace = await elicitor('Grace Hopper');
    const call = (client: Client) =>
      client.callTool({ name: 'everything__trigger-elicitation-request', arguments: {} });
    const [a, g] = await Promise.all([call(ada), call(grace)]);
    expect(a.isError, textOf(a)).toBeFalsy();
    expect(textOf(a)).toContain('- Name: Ada Lovelace');
    expect(textOf(a)).not.toContain('Grace Hopper');
    expect(textOf(g)).toContain('- Name: Grace Hopper');
    expect(textOf(g)).not.toContain('Ada Lovelace');
  });

  it('gives a sampling client its own server process for a sampling tool and stops it when the session ends', async () => {
    const before = descendants(gateway.child.pid!);
    const sampler = await connectHttpWith(gateway.url, 'short-lived', { sampling: {} }, (c) =>
      c.setRequestHandler(CreateMessageRequestSchema, async () => ({
        model: 'm',
        role: 'assistant',
        content: { type: 'text', text: 'ok' },
      })),
    );
    let link: ProcInfo[] = [];
    let watchdogs: ProcInfo[] = [];
    try {
      // A tool that asks the client (sampling) runs on a link of the session's own. (A tool seen to
      // finish without asking anything, like echo, runs on the shared connection.)
      const sampled = await sampler.callTool({
        name: 'everything__trigger-sampling-request',
        arguments: { prompt: 'linked', maxTokens: 5 },
      });
      expect(textOf(sampled)).toContain('LLM sampling result');
      const known = new Set(before.map((p) => `${p.pid}/${p.start}`));
      const fresh = descendants(gateway.child.pid!).filter((p) => !known.has(`${p.pid}/${p.start}`));
      const isWatchdog = (p: ProcInfo) => describeProcs([p]).includes('aperture-watchdog');
      watchdogs = fresh.filter(isWatchdog);
      link = fresh.filter((p) => !isWatchdog(p));
      // A downstream connection of its own: one more `everything` process, and only that one
      // (plus the watchdog that kills it should the gateway die).
      expect(link, describeProcs(link)).toHaveLength(1);
      expect(describeProcs(link)).toContain('server-everything');
      expect(watchdogs, describeProcs(watchdogs)).toHaveLength(1);

      await (sampler.transport as StreamableHTTPClientTransport).terminateSession();
      await sampler.close();
      await until(
        () => ([...link, ...watchdogs].some(alive) ? undefined : true),
        5000,
        'the link process and its watchdog to exit',
      );
    } finally {
      await sampler.close().catch(() => {});
      killLeftovers([...link, ...watchdogs]);
    }
  });

  it('cancels a long-running call when the client aborts, and stays usable', async () => {
    const controller = new AbortController();
    let progressed = false;
    const started = Date.now();
    const pending = client.callTool(
      { name: 'everything__trigger-long-running-operation', arguments: { duration: 10, steps: 20 } },
      undefined,
      {
        signal: controller.signal,
        onprogress: () => {
          progressed = true;
          controller.abort('user stop');
        },
      },
    );
    await expect(pending).rejects.toThrow();
    expect(progressed).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);

    const echo = await client.callTool({ name: 'everything__echo', arguments: { message: 'still here' } });
    expect(textOf(echo)).toBe('Echo: still here');
    const quick = await client.callTool({
      name: 'everything__trigger-long-running-operation',
      arguments: { duration: 0.2, steps: 2 },
    });
    expect(textOf(quick)).toContain('completed');
    const res = await fetch(`${gateway.url}/readyz`);
    expect(res.status).toBe(200);
  });
});

describe('downstream MCP servers through metatools (stdio)', () => {
  let box: Sandbox;
  let client: DisposableClient;

  beforeAll(async () => {
    box = await sandbox('metatools');
    client = await connectStdio(['--config', box.config]);
  });

  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    if (box) await rm(box.dir, { recursive: true, force: true });
  });

  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args });

  it('lists only the metatools', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['search_tools', 'describe_tool', 'run_tool']));
    expect(names.some((n) => n.startsWith('memory__'))).toBe(false);
  });

  it('lists the three servers as namespaces once connected', async () => {
    // Servers connect in the background and stdio has no /readyz: poll list_namespaces instead.
    const namespaces = await until(
      async () => {
        const listed = structured(await call('list_namespaces')).namespaces as {
          namespace: string;
          tools: number;
        }[];
        return listed.length === 3 ? listed : undefined;
      },
      15_000,
      'three namespaces',
    );
    expect(namespaces.map((n) => n.namespace).sort()).toEqual(['everything', 'files', 'memory']);
    expect(namespaces.find((n) => n.namespace === 'memory')?.tools).toBe(9);
  });

  it('finds, describes and runs a memory tool', async () => {
    const found = structured(
      await call('search_tools', { query: 'create entities in the knowledge graph', limit: 5 }),
    ).tools as { id: string }[];
    expect(found[0]?.id).toBe('memory:create_entities');

    const described = structured(await call('describe_tool', { tool_id: 'memory:create_entities' }));
    expect(JSON.stringify(described)).toContain('entities');
    const schema = (described.inputSchema ?? described.tool?.inputSchema) as {
      properties: Record<string, unknown>;
      required?: string[];
    };
    expect(schema.properties).toHaveProperty('entities');
    expect(schema.required).toContain('entities');

    const ran = await call('run_tool', {
      tool_id: 'memory:create_entities',
      args: { entities: [{ name: 'Lisbon', entityType: 'city', observations: ['on the Tagus'] }] },
    });
    expect(ran.isError, textOf(ran)).toBeFalsy();
    const graph = await call('run_tool', { tool_id: 'memory:read_graph', args: {} });
    expect(JSON.stringify(graph)).toContain('on the Tagus');

    // The override renames the tool id as well.
    const renamed = structured(await call('describe_tool', { tool_id: 'files:read' }));
    expect(JSON.stringify(renamed)).toContain('renamed by an override');
    const original = await call('describe_tool', { tool_id: 'files:read_text_file' });
    expect(original.isError).toBe(true);
    const echo = await call('run_tool', { tool_id: 'everything:echo', args: { message: 'via run_tool' } });
    expect(textOf(echo)).toBe('Echo: via run_tool');
  });

  it('stops its servers when the stdio client goes away', async () => {
    const pid = (client.transport as StdioClientTransport | undefined)?.pid;
    expect(pid).toBeTypeOf('number');
    const children = descendants(pid!);
    expect(children.length).toBeGreaterThanOrEqual(3);
    await client.close();
    try {
      await until(
        () => (children.some(alive) || readStat(pid!) ? undefined : true),
        6000,
        'the gateway and its servers to exit',
      );
    } finally {
      killLeftovers(children);
    }
  });
});

describe('with the faulty fixture server: cancellation and no orphan processes', () => {
  const boxes: Sandbox[] = [];

  afterAll(async () => {
    await Promise.all(boxes.map((box) => rm(box.dir, { recursive: true, force: true })));
  });

  it('passes a client cancellation on to the downstream server', async () => {
    const box = await sandbox('flat', { faulty: true });
    boxes.push(box);
    await using gateway = await startHttpGateway(['--config', box.config]);
    await waitReady(gateway.url);
    await using client = await connectHttp(gateway.url);
    const controller = new AbortController();
    const pending = client.callTool({ name: 'faulty__sleep', arguments: { ms: 10_000 } }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort('user stop'), 300);
    await expect(pending).rejects.toThrow();
    const marks = await until(
      async () => {
        const lines = (await readFile(box.markFile, 'utf8')).trim().split('\n');
        const events = lines.map((line) => JSON.parse(line) as { event: string; tool?: string });
        return events.some((e) => e.event === 'aborted') ? events : undefined;
      },
      3000,
      'the downstream sleep to be aborted',
    );
    expect(marks.map((e) => e.event)).toEqual(expect.arrayContaining(['call', 'cancelled', 'aborted']));
    const echo = await client.callTool({ name: 'faulty__echo', arguments: { text: 'after cancel' } });
    expect(textOf(echo)).toBe('after cancel');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops every server process and their children on ${signal}`, async () => {
      const box = await sandbox('flat', { faulty: true });
      boxes.push(box);
      const gateway = await startHttpGateway(['--config', box.config]);
      let tree: ProcInfo[] = [];
      try {
        const ready = await waitReady(gateway.url);
        expect(ready.sources.map((s) => s.state)).toEqual([
          'connected',
          'connected',
          'connected',
          'connected',
        ]);
        let grandchild: ProcInfo | undefined;
        {
          await using client = await connectHttp(gateway.url);
          const spawned = await client.callTool({ name: 'faulty__spawn_child', arguments: {} });
          const childPid = Number(textOf(spawned));
          expect(childPid).toBeGreaterThan(0);
          grandchild = readStat(childPid);
        }
        tree = descendants(gateway.child.pid!);
        expect(grandchild).toBeDefined();
        expect(tree.map((p) => p.pid)).toContain(grandchild!.pid);
        // Four servers (node) and the grandchild at least.
        expect(tree.length, describeProcs(tree)).toBeGreaterThanOrEqual(5);

        const stoppedAt = Date.now();
        gateway.child.kill(signal);
        const exit = await exitWithin(gateway.child, 8000);
        expect(exit, `gateway still running 8 s after ${signal}`).toBeDefined();
        expect(exit).toEqual({ code: 0, signal: null });
        await until(() => (tree.some(alive) ? undefined : true), 5000, 'the descendants to exit').catch(
          () => {
            throw new Error(`still running after ${signal}:\n${describeProcs(tree.filter(alive))}`);
          },
        );
        expect(alive(grandchild!)).toBe(false);
        expect(Date.now() - stoppedAt).toBeLessThan(8000);
      } finally {
        await gateway[Symbol.asyncDispose]();
        killLeftovers(tree);
      }
    });
  }
});
