import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

// Regression: ajv ran every JSON Schema `pattern` on the backtracking RegExp, on the main thread.
// A downstream server declaring `^(a+)+$` in an output schema and answering 29 characters blocked
// `/healthz` for 51 s; a caller's string against such an input pattern blocked it for 4–33 s.
const FIXTURE = path.join(ROOT, 'test/fixtures/mcp/redos-server.mjs');
const KILLER = `${'a'.repeat(30)}!`;

/** Polls `/healthz` back to back until stopped; resolves with the slowest answer, in ms. */
function pollHealth(url: string): { stop: () => Promise<{ slowest: number; polls: number }> } {
  let running = true;
  let slowest = 0;
  let polls = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(`${url}/healthz`);
      await response.text();
      slowest = Math.max(slowest, performance.now() - started);
      polls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { slowest, polls };
    },
  };
}

async function whenReady(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await fetch(`${url}/readyz`)).status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the gateway never became ready');
}

interface RunAnswer {
  isError?: boolean;
  structuredContent?: { error?: { code?: string; message?: string } };
  content: { type: string; text?: string }[];
}

describe('schema patterns run in bounded time: an exponential pattern cannot freeze the gateway', () => {
  let dir: string;
  let gateway: RunningGateway;
  let client: Client;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-redos-'));
    const file = path.join(dir, 'aperture.json');
    await writeFile(
      file,
      JSON.stringify({
        servers: { redos: { command: process.execPath, args: [FIXTURE], cwd: path.dirname(FIXTURE) } },
        exposure: { mode: 'metatools' },
      }),
    );
    gateway = await startHttpGateway(['--config', file]);
    await whenReady(gateway.url);
    client = new Client({ name: 'e2e-redos', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
  }, 30_000);

  afterAll(async () => {
    await client?.close().catch(() => {});
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  /** `run_tool` through the metatools, so this client never validates the tool's own schemas. */
  async function run(
    toolId: string,
    args: Record<string, unknown>,
  ): Promise<{ answer: RunAnswer; ms: number }> {
    const started = performance.now();
    const answer = (await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: toolId, args },
    })) as RunAnswer;
    return { answer, ms: performance.now() - started };
  }

  const text = (answer: RunAnswer) => answer.content.map((block) => block.text ?? '').join('');

  it('keeps /healthz answering within 100 ms while both killer calls run, and ends each within 1 s', async () => {
    // Warm up first (ajv and the schema compile once per tool): what is measured is the matching.
    await run('redos:killer_input', { word: 'aaaa' });
    const health = pollHealth(gateway.url);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [output, input] = await Promise.all([
      run('redos:killer_output', {}),
      run('redos:killer_input', { word: KILLER }),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { slowest, polls } = await health.stop();

    // The server's answer does not match its own output schema: refused as a bad backend result.
    expect(output.answer.isError).toBe(true);
    expect(text(output.answer)).toContain('validation_output');
    expect(output.ms).toBeLessThan(1000);
    // The caller's string does not match the input pattern: refused as the caller's fault.
    expect(input.answer.isError).toBe(true);
    expect(text(input.answer)).toContain('validation_input');
    expect(input.ms).toBeLessThan(1000);

    expect(polls).toBeGreaterThan(3);
    expect(slowest).toBeLessThan(100);
  });

  it('still runs the tools for values that match', async () => {
    const { answer } = await run('redos:killer_input', { word: 'aaaa' });
    expect(answer.isError).toBeFalsy();
    expect(text(answer)).toContain('aaaa');
  });

  it('refuses on arrival a tool whose pattern needs backtracking, naming it; the rest of the server serves', async () => {
    const { answer } = await run('redos:backreference', { word: 'aa' });
    expect(answer.isError).toBe(true);
    expect(text(answer)).toContain('tool_not_found');
    expect(gateway.stderr()).toMatch(/redos:backreference: \/inputSchema\/properties\/word\/pattern/);
    expect(gateway.stderr()).toContain('schema pattern');
  });
});
