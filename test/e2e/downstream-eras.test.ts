import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport as LegacySseTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startListeningFixture } from '../support/listening-fixture.js';
import {
  CLI,
  connectHttp,
  connectSse,
  ROOT,
  type RunningGateway,
  startHttpGateway,
  stopProcess,
} from './gateway-process.js';

const MODERN_FIXTURE = path.join(ROOT, 'test/fixtures/mcp/modern-http-server.mjs');
const LEGACY_FIXTURE = path.join(ROOT, 'test/fixtures/conformance/stdio.mjs');

/** Polls `/readyz` until the gateway is ready (its servers connected); returns the body. */
async function whenReady(baseUrl: string): Promise<Record<string, any>> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${baseUrl}/readyz`);
    if (response.status === 200) return (await response.json()) as Record<string, any>;
    if (attempt > 200) throw new Error(`not ready: ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function text(result: unknown): string {
  const content = (result as { content?: { text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

describe('downstream servers of both eras', () => {
  let modern: { child: ChildProcess; url: string };
  let dir: string;
  let config: string;
  let gateway: RunningGateway;
  let ready: Record<string, any>;

  beforeAll(async () => {
    modern = await startListeningFixture(MODERN_FIXTURE);
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-eras-'));
    config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      JSON.stringify({
        servers: {
          modern: { url: modern.url },
          legacy: { command: process.execPath, args: [LEGACY_FIXTURE], cwd: path.dirname(LEGACY_FIXTURE) },
        },
        tools: { builtin: false },
        exposure: 'metatools',
      }),
    );
    gateway = await startHttpGateway(['--config', config]);
    ready = await whenReady(gateway.url);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (modern) await stopProcess(modern.child);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('negotiates the 2026-07-28 revision with a modern server and says so in /readyz', async () => {
    const sources = ready.sources as { id: string; transport?: string; protocolVersion?: string }[];
    const byName = new Map(sources.map((s) => [s.id, s]));
    expect(byName.get('mcp:modern')).toMatchObject({
      state: 'connected',
      transport: 'streamable-http',
      protocolVersion: '2026-07-28',
    });
    expect(byName.get('mcp:legacy')).toMatchObject({ state: 'connected', transport: 'stdio' });
    expect(byName.get('mcp:legacy')?.protocolVersion).toMatch(/^2025-/);
  });

  it("serves the modern server's tool to clients of every era and wire", async () => {
    const call = { name: 'run_tool', arguments: { tool_id: 'modern:shout', args: { text: 'hi' } } };
    await using legacyHttp = await connectHttp(gateway.url);
    await using legacySse = await connectSse(gateway.url);
    const modernClient = new Client(
      { name: 'modern', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await modernClient.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    try {
      for (const client of [legacyHttp, legacySse, modernClient]) {
        expect(text(await client.callTool(call))).toBe('HI');
      }
    } finally {
      await modernClient.close();
    }
  });

  it("turns a modern server's input_required into an elicitation/create to a 2025 client, and back", async () => {
    const asked: unknown[] = [];
    const client = new LegacyClient(
      { name: 'legacy-eliciting', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'accept', content: { ok: true } };
    });
    await client.connect(new LegacyHttpTransport(new URL(`${gateway.url}/mcp`)));
    try {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'modern:confirm', args: {} },
      });
      expect(asked).toEqual(['Proceed?']);
      expect(text(result)).toBe('answered: {"action":"accept","content":{"ok":true}}');
    } finally {
      await client.close();
    }
  });

  it("turns a modern server's input_required into an elicitation/create to a legacy SSE client too", async () => {
    const asked: unknown[] = [];
    const client = new LegacyClient(
      { name: 'sse-eliciting', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'decline' };
    });
    await client.connect(new LegacySseTransport(new URL(`${gateway.url}/sse`)));
    try {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'modern:confirm', args: {} },
      });
      expect(asked).toEqual(['Proceed?']);
      expect(text(result)).toBe('answered: {"action":"decline"}');
    } finally {
      await client.close();
    }
  });

  it("answers a modern server's round through run_tool in rounds of the gateway's own for a 2026-07-28 client", async () => {
    const asked: unknown[] = [];
    const client = new Client(
      { name: 'modern-eliciting', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message?: unknown }).message);
      return { action: 'accept', content: { ok: false } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    try {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'modern:confirm', args: {} },
      });
      expect(asked).toEqual(['Proceed?']);
      expect(text(result)).toBe('answered: {"action":"accept","content":{"ok":false}}');
    } finally {
      await client.close();
    }
  });

  it("hears of a modern server's tool list changes on its subscriptions/listen stream", async () => {
    await using client = await connectHttp(gateway.url);
    const added = await client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'modern:add_tool', args: { name: 'fresh_tool' } },
    });
    expect(text(added)).toContain('added fresh_tool');
    // The server announces it lists tools that change: no periodic re-listing stands in for the stream.
    await vi.waitFor(
      async () => {
        const listed = await fetch(`${gateway.url}/api/tools?namespace=modern&limit=100`);
        expect(await listed.text()).toContain('modern:fresh_tool');
      },
      { timeout: 15_000, interval: 200 },
    );
  });

  it("relays a modern server's resource updates to the sessions subscribed (flat exposure)", async () => {
    const flatConfig = path.join(dir, 'flat.yaml');
    await writeFile(
      flatConfig,
      JSON.stringify({
        servers: { modern: { url: modern.url } },
        tools: { builtin: false },
        exposure: 'flat',
      }),
    );
    await using flat = await startHttpGateway(['--config', flatConfig]);
    await whenReady(flat.url);
    await using client = await connectHttp(flat.url);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain('fixture://counter');
    await client.subscribeResource({ uri: 'fixture://counter' });
    // The subscription reaches the server as the listen stream's filter: touch until one arrives.
    await vi.waitFor(
      async () => {
        await client.callTool({ name: 'modern__touch', arguments: {} });
        expect(updates).toContain('fixture://counter');
      },
      { timeout: 15_000, interval: 300 },
    );
  });

  it('doctor reports the revision each server speaks', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [CLI, 'doctor', '--config', config, '--json'],
      { cwd: ROOT },
    );
    const report = JSON.parse(stdout) as { servers: { name: string; protocolVersion: string | null }[] };
    const byName = new Map(report.servers.map((s) => [s.name, s.protocolVersion]));
    expect(byName.get('modern')).toBe('2026-07-28');
    expect(byName.get('legacy')).toMatch(/^2025-/);
  });
});
