import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { CLI, startHttpGateway, structured } from './gateway-process.js';

const require = createRequire(import.meta.url);
const MEMORY_SERVER = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** A stdio "server" that starts and never answers `initialize` (its first try lasts 30 s). */
const SILENT_SERVER = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 60000)'] };

async function configWith(
  servers: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-startup-'));
  const file = path.join(dir, 'config.json');
  const memory = {
    command: process.execPath,
    args: [MEMORY_SERVER],
    env: { MEMORY_FILE_PATH: path.join(dir, 'm.jsonl') },
  };
  await writeFile(file, JSON.stringify({ mcpServers: { memory, ...servers }, ...extra }));
  return file;
}

/** Connects an SDK client over stdio, as Claude Desktop or the Inspector's CLI mode does. */
async function connectStdio(config: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--stdio', '--config', config],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'startup-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

describe('stdio clients see the downstream tools in their first answers', { timeout: 60_000 }, () => {
  it('the first tools/list holds the memory tools, and a one-shot run_tool finds its tool', async () => {
    // Flat exposure lists every tool directly, so the first tools/list shows whether they are there.
    await using session = await connectStdio(await configWith({}, { exposure: 'flat' }));
    // No polling, no waiting for list_changed: the very first answers must be complete.
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('memory__create_entities');

    // The Inspector's one-shot `tools/call run_tool` (default exposure: the metatools).
    await using second = await connectStdio(await configWith({}));
    const created = await second.client.callTool({
      name: 'run_tool',
      arguments: {
        tool_id: 'memory:create_entities',
        args: {
          entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
        },
      },
    });
    expect(created.isError ?? false).toBe(false);
    expect(JSON.stringify(structured(created))).toContain('Ada');
  });

  it('a server still not up after startup.waitMs does not hold initialize: it is logged and joins later', async () => {
    const config = await configWith(
      { silent: SILENT_SERVER },
      { startup: { waitMs: 1000 }, exposure: 'flat' },
    );
    // The silent server's own first try lasts 30 s (its connect timeout); the bound is far below.
    await using session = await connectStdio(config);
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('memory__create_entities');
    expect(names.some((name) => name.startsWith('silent__'))).toBe(false);
    const line = session
      .stderr()
      .split('\n')
      .find((l) => l.includes('startup.waitMs'));
    expect(line).toBeDefined();
    expect(JSON.parse(line as string).servers).toEqual(['silent']);
  });
});

describe('stdio messages sent before the gateway is up', { timeout: 60_000 }, () => {
  it('are all answered, in order: nothing written to stdin during the wait is lost', async () => {
    const config = await configWith({});
    const child = spawn(process.execPath, [CLI, 'serve', '--stdio', '--config', config], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // What a one-shot client (the Inspector's --cli mode) writes at once, without waiting.
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'run_tool', arguments: { tool_id: 'memory:read_graph', args: {} } },
      },
    ];
    child.stdin.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
    let out = '';
    const answers = await new Promise<Record<string, any>[]>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const lines = out.split('\n').filter((line) => line.trim() !== '');
        const parsed = lines.map((line) => JSON.parse(line) as Record<string, any>).filter((m) => 'id' in m);
        if (parsed.length >= 2) resolve(parsed);
      });
      child.once('exit', (code) => reject(new Error(`gateway exited with ${code}: ${out}`)));
    });
    child.stdin.end();
    await new Promise((resolve) => child.once('exit', resolve));
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1]?.result.isError ?? false).toBe(false);
    expect(answers[1]?.result.structuredContent).toEqual({ entities: [], relations: [] });
  });
});

describe('/readyz obeys startup.waitMs', { timeout: 60_000 }, () => {
  it('answers ready once the wait is over, with the late server still connecting', async () => {
    const config = await configWith({ silent: SILENT_SERVER }, { startup: { waitMs: 1000 } });
    await using gateway = await startHttpGateway(['--config', config]);
    let body: Record<string, any> | undefined;
    // Safety bound 20 s, well below the silent server's 30 s first try: ready must come from the wait.
    for (let i = 0; i < 200 && body === undefined; i++) {
      const res = await fetch(`${gateway.url}/readyz`);
      if (res.status === 200) body = (await res.json()) as Record<string, any>;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(body?.ready).toBe(true);
    const states = Object.fromEntries(
      ((body?.sources ?? []) as { id: string; state: string }[]).map((source) => [source.id, source.state]),
    );
    expect(states).toEqual({ 'mcp:memory': 'connected', 'mcp:silent': 'connecting' });
  });
});
