#!/usr/bin/env node
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport, McpServer } from '@modelcontextprotocol/server';
import { memorySkillFiles, SkillCatalog } from '@modelcontextprotocol/server/ext/skills';
import { silentLogger } from '../src/foundation/ports/logger.js';
import { DownstreamSkills, type SkillsPeer } from '../src/sources/mcp/downstream-skills.js';
import { GatewaySkills, type SkillServer } from '../src/surfaces/mcp/skills/gateway-skills.js';
import {
  GATEWAY_CLI,
  interleavedRounds,
  machine,
  ms,
  option,
  ROOT,
  runIfMain,
  summarize,
  table,
} from './lib/common.js';

/**
 * `skills/list` through the gateway (the Skills extension, SEP-2640) against the same server
 * asked directly: what aggregation adds per call. Two parts, each measured side by side in one
 * run (interleaved rounds), figures as ratios to the direct call:
 *
 * 1. Over stdio, as a host runs them: the fixture skills server directly, and `aperture serve
 *    --stdio` (the built CLI) with that server behind it, then with two such servers. The gateway
 *    keeps each server's listing until the server announces a change, so this is the steady
 *    state: the gateway's own work (visibility, renaming, one JSON-RPC hop) with no downstream trip.
 * 2. In process, without the listing cache (every call asks every server, in parallel): one
 *    in-memory SDK server asked by `SkillsClient`, against `GatewaySkills` over one and two such
 *    servers. This is the fan-out's cost when listings are cold.
 */

const SERVER = path.join(ROOT, 'test/fixtures/skills/skills-server.mjs');

interface Target {
  key: string;
  label: string;
  list: () => Promise<number>;
  close: () => Promise<void>;
}

async function stdioClient(
  label: string,
  args: string[],
): Promise<{ client: Client; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: 'pipe' });
  transport.stderr?.on('data', () => {});
  const client = new Client({ name: `bench-${label}`, version: '1' });
  await client.connect(transport);
  return { client, close: () => client.close().catch(() => {}) };
}

async function stdioTargets(dir: string): Promise<Target[]> {
  const gatewayConfig = (servers: string[]) => {
    const file = path.join(dir, `gateway-${servers.length}.yaml`);
    const q = (value: string) => JSON.stringify(value);
    writeFileSync(
      file,
      [
        'tools: { builtin: false }',
        'servers:',
        ...servers.map((s) => `  ${s}: { command: ${q(process.execPath)}, args: [${q(SERVER)}, ${q(s)}] }`),
        'observability: { logLevel: error }',
        '',
      ].join('\n'),
    );
    return file;
  };
  const made: Target[] = [];
  const add = async (key: string, label: string, args: string[], expected: number) => {
    const { client, close } = await stdioClient(key, args);
    const skills = new SkillsClient(client);
    const list = async () => (await skills.list()).skills.length;
    // The gateway lists its servers' skills once they are connected: wait for all of them.
    const deadline = Date.now() + 30_000;
    while ((await list()) < expected) {
      if (Date.now() > deadline) throw new Error(`${key}: fewer skills than ${expected}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    made.push({ key, label, list, close });
  };
  await add('direct', 'server directly (stdio)', [SERVER, 'alpha'], 2);
  await add(
    'gateway1',
    'gateway, one server',
    [GATEWAY_CLI, 'serve', '--stdio', '--config', gatewayConfig(['alpha'])],
    2,
  );
  await add(
    'gateway2',
    'gateway, two servers',
    [GATEWAY_CLI, 'serve', '--stdio', '--config', gatewayConfig(['alpha', 'beta'])],
    4,
  );
  return made;
}

const FILES = (label: string) => ({
  'pdf-tools/SKILL.md': `---\nname: pdf-tools\ndescription: PDF forms of ${label}\n---\n# PDF\n`,
  'pdf-tools/references/GUIDE.md': `guide of ${label}`,
  [`${label}-notes/SKILL.md`]: `---\nname: ${label}-notes\ndescription: Notes of ${label}\n---\n# Notes\n`,
});

async function inMemoryClient(label: string): Promise<Client> {
  const server = new McpServer({ name: label, version: '1' });
  (await SkillCatalog.load(memorySkillFiles(FILES(label)))).attach(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'bench', version: '1' });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

async function inProcessTargets(): Promise<Target[]> {
  const direct = new SkillsClient(await inMemoryClient('alpha'));
  const server = async (name: string): Promise<SkillServer> => {
    const client = await inMemoryClient(name);
    const peer: SkillsPeer = {
      name,
      namespace: name,
      sourceId: `mcp:${name}`,
      capabilities: () => client.getServerCapabilities(),
      withClient: (_channel, use) => use(client),
      onNotification: () => () => {},
    };
    // maxAgeMs 0: no listing is kept, every call asks the servers.
    return {
      name,
      namespace: name,
      sourceId: peer.sourceId,
      prefix: true,
      skills: new DownstreamSkills(peer, silentLogger, 0),
    };
  };
  const gateway = (servers: SkillServer[]) =>
    new GatewaySkills({ servers: () => servers, configured: () => undefined, log: silentLogger });
  const one = gateway([await server('alpha')]);
  const two = gateway([await server('alpha'), await server('beta')]);
  const view = { scope: { tools: () => [], get: () => ({}) as never }, confined: false };
  const none = async () => {};
  return [
    {
      key: 'direct',
      label: '`SkillsClient` on one server',
      list: async () => (await direct.list()).skills.length,
      close: none,
    },
    {
      key: 'gateway1',
      label: '`GatewaySkills`, one server, no cache',
      list: async () => (await one.list(view)).skills.length,
      close: none,
    },
    {
      key: 'gateway2',
      label: '`GatewaySkills`, two servers, no cache',
      list: async () => (await two.list(view)).skills.length,
      close: none,
    },
  ];
}

async function measure(targets: Target[], n: number, warmup: number, blockSize: number) {
  const { samples } = await interleavedRounds(targets, {
    n,
    warmup,
    blockSize,
    block: async (target, count, sink) => {
      for (let i = 0; i < count; i++) {
        const start = performance.now();
        await target.list();
        sink?.push(performance.now() - start);
      }
    },
  });
  return targets.map((target) => ({
    key: target.key,
    label: target.label,
    ...summarize(samples[target.key]!),
  }));
}

export async function run() {
  const n = option('n', 400);
  const warmup = option('warmup', 40);
  const blockSize = option('block', 20);
  const dir = mkdtempSync(path.join(tmpdir(), 'aperture-bench-skills-'));
  const stdio = await stdioTargets(dir);
  try {
    const overStdio = await measure(stdio, n, warmup, blockSize);
    const inProcess = await measure(await inProcessTargets(), n, warmup, blockSize);
    return { machine: machine(), n, overStdio, inProcess };
  } finally {
    for (const target of stdio) await target.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

type Row = { key: string; label: string; p50: number; p95: number };

function render(results: Awaited<ReturnType<typeof run>>): string {
  const rows = (list: Row[]) => {
    const direct = list.find((row) => row.key === 'direct')!;
    return list.map((row) => [row.label, ms(row.p50), ms(row.p95), (row.p50 / direct.p50).toFixed(2)]);
  };
  const { machine: m } = results;
  return [
    '## `skills/list` aggregation (Skills extension)',
    '',
    `${results.n} calls per target, interleaved; Node ${m.node}, ${m.nproc} cores, load ${m.loadavg}, commit ${m.git}.`,
    '',
    '### Over stdio (built CLI; listings kept until a server announces a change)',
    '',
    table(['target', 'p50 ms', 'p95 ms', '× direct p50'], rows(results.overStdio as Row[])),
    '',
    '### In process, no listing cache (every call asks every server)',
    '',
    table(['target', 'p50 ms', 'p95 ms', '× direct p50'], rows(results.inProcess as Row[])),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
