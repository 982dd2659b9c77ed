import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, ROOT } from './gateway-process.js';

const DEBUG_CONFIG = path.join(ROOT, 'test/fixtures/gateway-debug.yaml');

interface Message {
  jsonrpc: string;
  id?: number;
  method?: string;
  result?: Record<string, any>;
  error?: { code: number };
  params?: Record<string, any>;
}

/** Drives `aperture serve --stdio` with raw JSON-RPC lines and returns every stdout line. */
async function session(lines: string[], expectResponses: number) {
  const child = spawn(process.execPath, [CLI, 'serve', '--stdio', '--config', DEBUG_CONFIG], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out; stdout so far:\n${stdout}\nstderr:\n${stderr}`)),
      15_000,
    );
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const responses = stdout
        .split('\n')
        .filter((l) => l.includes('"id"') && !l.includes('"method"')).length;
      if (responses >= expectResponses) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  for (const line of lines) child.stdin.write(`${line}\n`);
  await done;
  child.stdin.end();
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { stdout, stderr, code };
}

const rpc = (id: number, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

const INIT = rpc(1, 'initialize', {
  protocolVersion: '2025-06-18',
  capabilities: {},
  clientInfo: { name: 'raw', version: '1' },
});
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

describe('stdio protocol stream', () => {
  it('writes nothing but JSON-RPC to stdout, even with debug logging and bad input', async () => {
    const { stdout, stderr, code } = await session(
      [
        INIT,
        INITIALIZED,
        rpc(2, 'tools/list'),
        'this is not json',
        '{"jsonrpc":"2.0","id":3,"method":"no/such/method"}',
        rpc(4, 'tools/call', { name: 'run_tool', arguments: { tool_id: 'fixture:fail' } }),
        rpc(5, 'tools/call', {
          name: 'run_tool',
          arguments: { tool_id: 'fixture:add', args: { a: 1, b: 2 } },
        }),
      ],
      4,
    );
    const lines = stdout.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const messages = lines.map((line) => JSON.parse(line) as Message);
    for (const message of messages) expect(message.jsonrpc).toBe('2.0');
    const byId = new Map(messages.filter((m) => m.id !== undefined).map((m) => [m.id, m]));
    expect(byId.get(1)?.result?.serverInfo.name).toBe('aperture-test');
    expect(byId.get(2)?.result?.tools.length).toBeGreaterThan(7);
    expect(byId.get(3)?.error?.code).toBe(-32601);
    expect(byId.get(4)?.result?.isError).toBe(true);
    expect(byId.get(5)?.result?.structuredContent).toEqual({ sum: 3 });
    // Logs exist, and they went to stderr.
    expect(stderr).toContain('"msg"');
    expect(code).toBe(0);
  });

  it('answers a line that is not a message with an error, and goes on serving', async () => {
    const { stdout, stderr, code } = await session(
      [
        INIT,
        INITIALIZED,
        'this is not json',
        '{"jsonrpc":"2.0","id":7,"method":5}',
        '{"jsonrpc":"2.0","id":8,"method":"tools/list","params":[]}',
        '{"jsonrpc":"1.0","id":9,"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":10,"result":"a response nobody asked for"}',
        rpc(11, 'tools/call', {
          name: 'run_tool',
          arguments: { tool_id: 'fixture:add', args: { a: 2, b: 5 } },
        }),
      ],
      5,
    );
    const messages = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Message & { error?: { code: number; message: string } });
    const parseErrors = messages.filter((m) => m.error?.code === -32700);
    expect(parseErrors).toHaveLength(1);
    expect(parseErrors[0]).not.toHaveProperty('id');
    const byId = new Map(messages.filter((m) => m.id !== undefined).map((m) => [m.id, m]));
    expect(byId.get(7)?.error).toEqual({
      code: -32600,
      message: 'Invalid Request: "method" must be a string',
    });
    expect(byId.get(8)?.error).toEqual({
      code: -32600,
      message: 'Invalid Request: "params" must be an object',
    });
    expect(byId.get(9)?.error).toEqual({ code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' });
    // A malformed response is not answered (JSON-RPC answers requests), only logged.
    expect(byId.has(10)).toBe(false);
    expect(byId.get(11)?.result?.structuredContent).toEqual({ sum: 7 });
    expect(stderr).toContain('MCP stdio connection error');
    expect(code).toBe(0);
  });

  it('sends every progress notification before the result', async () => {
    const { stdout } = await session(
      [
        INIT,
        INITIALIZED,
        rpc(2, 'tools/call', {
          name: 'run_tool',
          arguments: { tool_id: 'fixture:wait', args: { ms: 50 } },
          _meta: { progressToken: 'p1' },
        }),
      ],
      2,
    );
    const messages = stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Message);
    const resultIndex = messages.findIndex((m) => m.id === 2);
    const progress = messages
      .map((m, index) => ({ m, index }))
      .filter(({ m }) => m.method === 'notifications/progress');
    expect(progress.map(({ m }) => m.params?.progress)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(progress.every(({ m }) => m.params?.progressToken === 'p1')).toBe(true);
    expect(progress.every(({ index }) => index < resultIndex)).toBe(true);
  });
});
