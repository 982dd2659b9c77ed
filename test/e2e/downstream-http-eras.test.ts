import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerBin } from '../support/fixture-servers.js';
import { freePort } from '../support/free-port.js';
import { type RunningGateway, startHttpGateway, stopProcess } from './gateway-process.js';

/**
 * Clients of both eras (the SDK v2 client, `auto` and `legacy`) through the gateway to 2025-era
 * servers over the network: the reference "everything" server from npm over Streamable HTTP and
 * over the legacy HTTP+SSE transport — flat tools and `run_tool`, and an elicitation the server asks
 * during a call, which a 2026-07-28 client answers as an input round.
 */

const EVERYTHING = referenceServerBin('server-everything');
const MODERN = '2026-07-28';

/** Starts the everything server on `transport`; resolves once it listens. */
async function startEverything(
  transport: 'streamableHttp' | 'sse',
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (/listening on port|running on port/i.test(err)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`everything (${transport}) exited with ${code}: ${err}`)));
  });
  return { child, port };
}

async function whenReady(baseUrl: string): Promise<Record<string, any>> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${baseUrl}/readyz`);
    if (response.status === 200) return (await response.json()) as Record<string, any>;
    if (attempt > 300) throw new Error(`not ready: ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** An SDK v2 client of either era that answers elicitations, recording what it was asked. */
async function connect(url: string, mode: 'auto' | 'legacy', asked: string[]): Promise<Client> {
  const client = new Client(
    { name: `http-eras-${mode}`, version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(String((request.params as { message?: unknown }).message));
    return { action: 'decline' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

describe('2025-era servers over Streamable HTTP and legacy SSE, to clients of both eras', () => {
  let http: { child: ChildProcess; port: number };
  let sse: { child: ChildProcess; port: number };
  let dir: string;
  let gateway: RunningGateway;
  let url: string;
  let ready: Record<string, any>;

  beforeAll(async () => {
    [http, sse] = await Promise.all([startEverything('streamableHttp'), startEverything('sse')]);
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-http-eras-'));
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      JSON.stringify({
        servers: {
          web: { url: `http://127.0.0.1:${http.port}/mcp` },
          legacy: { url: `http://127.0.0.1:${sse.port}/sse`, transport: 'sse' },
        },
        tools: { builtin: false },
        // The metatools and every tool directly: run_tool and the flat names both.
        exposure: { mode: 'auto', budgetTokens: 1_000_000 },
      }),
    );
    gateway = await startHttpGateway(['--config', config]);
    url = `${gateway.url}/mcp`;
    ready = await whenReady(gateway.url);
  }, 120_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await Promise.allSettled([http, sse].filter(Boolean).map(({ child }) => stopProcess(child)));
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('connects to both in the 2025 era, each over its transport', () => {
    const sources = ready.sources as { id: string; transport: string; protocolVersion: string }[];
    expect(sources.find((s) => s.id === 'mcp:web')).toMatchObject({ transport: 'streamable-http' });
    expect(sources.find((s) => s.id === 'mcp:legacy')).toMatchObject({ transport: 'sse' });
    for (const source of sources) expect(source.protocolVersion).not.toBe(MODERN);
  });

  for (const mode of ['auto', 'legacy'] as const) {
    for (const server of ['web', 'legacy']) {
      it(`${mode === 'auto' ? '2026-07-28' : '2025'} client: ${server}'s tools flat and through run_tool`, async () => {
        const client = await connect(url, mode, []);
        try {
          expect(client.getNegotiatedProtocolVersion() === MODERN).toBe(mode === 'auto');
          const flat = await client.callTool({
            name: `${server}__echo`,
            arguments: { message: `flat ${mode}` },
          });
          expect(flat.isError).toBeFalsy();
          expect(text(flat)).toContain(`flat ${mode}`);
          const viaRun = await client.callTool({
            name: 'run_tool',
            arguments: { tool_id: `${server}:echo`, args: { message: `run ${mode}` } },
          });
          expect(viaRun.isError).toBeFalsy();
          expect(JSON.stringify(viaRun)).toContain(`run ${mode}`);
        } finally {
          await client.close();
        }
      });

      it(`${mode === 'auto' ? '2026-07-28' : '2025'} client: ${server} asks for input during a call (flat and run_tool)`, async () => {
        const asked: string[] = [];
        const client = await connect(url, mode, asked);
        try {
          const flat = await client.callTool({
            name: `${server}__trigger-elicitation-request`,
            arguments: {},
          });
          expect(asked).toHaveLength(1);
          expect(asked[0]).toContain('Please provide inputs');
          expect(flat.isError).toBeFalsy();
          expect(text(flat).toLowerCase()).toContain('decline');
          const viaRun = await client.callTool({
            name: 'run_tool',
            arguments: { tool_id: `${server}:trigger-elicitation-request`, args: {} },
          });
          expect(asked).toHaveLength(2);
          expect(JSON.stringify(viaRun).toLowerCase()).toContain('decline');
        } finally {
          await client.close();
        }
      });
    }
  }
});
