import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningFixture } from '../support/listening-fixture.js';
import { ROOT, type RunningGateway, startHttpGateway, stopProcess } from './gateway-process.js';

/** A server of both eras on the SDK v2: 2025 sessions and the 2026-07-28 revision on one endpoint. */
const DUAL_ERA = path.join(ROOT, 'test/fixtures/conformance/dual-era-server.mjs');

interface Seen {
  method: string;
  params: unknown;
}

/** A 2025 client (SDK v1) that answers what it declares, noting each request it gets. */
async function legacyClient(
  url: string,
  seen: Seen[],
  capabilities: Record<string, object> = { sampling: {}, elicitation: {}, roots: {} },
): Promise<Client> {
  const client = new Client({ name: 'legacy-client', version: '1.0.0' }, { capabilities });
  if (capabilities.sampling)
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      seen.push({ method: request.method, params: request.params });
      return { role: 'assistant', content: { type: 'text', text: 'sampled by the client' }, model: 'm' };
    });
  if (capabilities.elicitation)
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      seen.push({ method: request.method, params: request.params });
      return { action: 'accept', content: { name: 'Ada' } };
    });
  if (capabilities.roots)
    client.setRequestHandler(ListRootsRequestSchema, async (request) => {
      seen.push({ method: request.method, params: request.params });
      return { roots: [{ uri: 'file:///home/ada', name: 'home' }] };
    });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const textOf = (result: unknown) =>
  ((result as { content: { text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('');

/** What one describe block talks to: the dual-era fixture behind `aperture serve`. */
interface Bridge {
  fixture: Awaited<ReturnType<typeof startListeningFixture>>;
  gateway: RunningGateway;
  /** The gateway's MCP endpoint. */
  url: string;
}

/**
 * Starts the dual-era fixture (with `env`) behind `aperture serve` (`exposure`, the server
 * prefixed or not) before the describe block it is called in, and stops both after it.
 */
function bridged(exposure: string, prefix: boolean, env: Record<string, string> = {}): Bridge {
  const bridge = {} as Bridge;
  let dir: string | undefined;
  beforeAll(async () => {
    bridge.fixture = await startListeningFixture(DUAL_ERA, env);
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-era-bridge-'));
    const config = path.join(dir, 'aperture.yaml');
    const server = { url: bridge.fixture.url, ...(prefix ? {} : { prefix: false }) };
    await writeFile(
      config,
      JSON.stringify({ servers: { both: server }, tools: { builtin: false }, exposure }),
    );
    bridge.gateway = await startHttpGateway(['--config', config]);
    bridge.url = `${bridge.gateway.url}/mcp`;
  }, 60_000);
  afterAll(async () => {
    await bridge.gateway?.[Symbol.asyncDispose]();
    if (bridge.fixture) await stopProcess(bridge.fixture.child);
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return bridge;
}

describe('Both eras bridged: a 2025 client through the gateway to a server of both eras', () => {
  const bridge = bridged('flat', false);

  it('the server reached in 2026-07-28 asks the 2025 client with the 2025 requests it knows (sampling, elicitation with defaults, roots)', async () => {
    const seen: Seen[] = [];
    const client = await legacyClient(bridge.url, seen);
    try {
      const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Say hi' } });
      expect(textOf(sampled)).toBe('LLM response: sampled by the client');
      const elicited = await client.callTool({ name: 'test_elicitation_sep1034_defaults', arguments: {} });
      expect(textOf(elicited)).toBe('Elicitation completed: action=accept, content={"name":"Ada"}');
      const roots = await client.callTool({ name: 'test_list_roots', arguments: {} });
      expect(textOf(roots)).toBe('Roots: file:///home/ada');
      expect(seen.map((s) => s.method)).toEqual([
        'sampling/createMessage',
        'elicitation/create',
        'roots/list',
      ]);
      // The defaults reached the client as the server wrote them (SEP-1034).
      const asked = seen[1]?.params as
        | { requestedSchema: { properties: Record<string, { default?: unknown }> } }
        | undefined;
      const schema = asked?.requestedSchema;
      expect(schema?.properties.age?.default).toBe(30);
      expect(schema?.properties.status?.default).toBe('active');
      // The gateway's connection is of the 2026 era; the asks went on a 2025 session of the client's own.
      expect(bridge.gateway.stderr()).toMatch(/keeps 2025 sessions too/);
    } finally {
      await client.close();
    }
  });

  it("carries a 2025 client's resources/subscribe onto the server's subscriptions/listen, its updates back as notifications/resources/updated, until it unsubscribes", async () => {
    const client = await legacyClient(bridge.url, []);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      updates.push(notification.params.uri);
    });
    try {
      await client.subscribeResource({ uri: 'test://watched-resource' });
      await client.callTool({ name: 'test_touch_watched', arguments: {} });
      await expect.poll(() => updates, { timeout: 10_000 }).toEqual(['test://watched-resource']);
      await client.unsubscribeResource({ uri: 'test://watched-resource' });
      await client.callTool({ name: 'test_touch_watched', arguments: {} });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(updates).toEqual(['test://watched-resource']);
    } finally {
      await client.close();
    }
  });

  it('a client that refuses the sampling fails the call with a stable code, the refusal named', async () => {
    const client = new Client({ name: 'refusing', version: '1.0.0' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      throw new McpError(-1, 'User rejected sampling');
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(bridge.url)));
    try {
      const result = (await client.callTool({ name: 'test_sampling', arguments: { prompt: 'hi' } })) as {
        isError?: boolean;
        structuredContent?: { error?: { code?: string; message?: string } };
      };
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.error?.code).toBe('execution_failed');
      expect(result.structuredContent?.error?.message).toMatch(/User rejected sampling/);
    } finally {
      await client.close();
    }
  });

  it('a client with no elicitation capability is never asked: the call fails with a stable code naming it', async () => {
    const seen: Seen[] = [];
    const client = await legacyClient(bridge.url, seen, { sampling: {} });
    try {
      const result = (await client.callTool({ name: 'test_elicitation', arguments: { message: 'hi' } })) as {
        isError?: boolean;
        structuredContent?: { error?: { code?: string; message?: string } };
      };
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.error?.code).toBe('execution_failed');
      expect(result.structuredContent?.error?.message).toMatch(/elicitation/);
      expect(seen).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a client that goes away mid-round leaves the gateway serving the others', async () => {
    const client = new Client({ name: 'leaving', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => {
      asked = resolve;
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked();
      return new Promise<never>(() => {});
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(bridge.url)));
    const call = client.callTool({ name: 'test_elicitation', arguments: { message: 'hi' } }).catch((e) => e);
    await wasAsked;
    await client.close();
    expect(await call).toBeInstanceOf(Error);

    const other = await legacyClient(bridge.url, []);
    try {
      expect(textOf(await other.callTool({ name: 'test_simple_text', arguments: {} }))).toMatch(
        /simple text/i,
      );
    } finally {
      await other.close();
    }
    expect(bridge.gateway.stderr()).not.toMatch(/"level":50/);
  });
});

describe('Both eras bridged through run_tool (metatools exposure)', () => {
  const bridge = bridged('metatools', true);

  it('a 2025 client is asked on its session; a 2026-07-28 client in rounds of the gateway (no session link for it)', async () => {
    const seen: Seen[] = [];
    const legacy = await legacyClient(bridge.url, seen);
    try {
      const result = await legacy.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'both:test_sampling', args: { prompt: 'Say hi' } },
      });
      expect(JSON.stringify(result)).toContain('LLM response: sampled by the client');
      expect(seen.map((s) => s.method)).toEqual(['sampling/createMessage']);
    } finally {
      await legacy.close();
    }
    expect(bridge.gateway.stderr()).toMatch(/keeps 2025 sessions too/);

    const asked: string[] = [];
    const modern = new ModernClient(
      { name: 'modern-client', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    modern.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String((request.params as { message?: unknown }).message));
      return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
    });
    await modern.connect(new ModernHttpTransport(new URL(bridge.url)));
    try {
      const result = await modern.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'both:test_elicitation', args: { message: 'Via run_tool?' } },
      });
      expect(asked).toEqual(['Via run_tool?']);
      expect(JSON.stringify(result)).toContain('action=accept');
      // One 2025 session was opened to the server (the 2025 client's link); the 2026 client's call opened none.
      const sessions = await modern.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'both:test_legacy_sessions', args: {} },
      });
      expect(textOf(sessions)).toBe('1');
    } finally {
      await modern.close();
    }
  });
});

describe("Both eras bridged: a 2025 client's subscription to a server whose 2026 side takes none", () => {
  const bridge = bridged('flat', false, { DUAL_ERA_MODERN_SUBSCRIBE: 'off' });

  it("goes on the client's own 2025 session link, whose updates reach it, until it unsubscribes", async () => {
    const client = await legacyClient(bridge.url, []);
    const other = await legacyClient(bridge.url, []);
    const updates: string[] = [];
    const otherUpdates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      updates.push(notification.params.uri);
    });
    other.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      otherUpdates.push(notification.params.uri);
    });
    try {
      await client.subscribeResource({ uri: 'test://watched-resource' });
      await other.callTool({ name: 'test_touch_watched', arguments: {} });
      await expect.poll(() => updates, { timeout: 10_000 }).toEqual(['test://watched-resource']);
      // Only the subscriber hears it.
      expect(otherUpdates).toEqual([]);
      await client.unsubscribeResource({ uri: 'test://watched-resource' });
      await other.callTool({ name: 'test_touch_watched', arguments: {} });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(updates).toEqual(['test://watched-resource']);
    } finally {
      await client.close();
      await other.close();
    }
  });
});
