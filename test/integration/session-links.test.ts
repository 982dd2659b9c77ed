import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { waitFor } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/**
 * Downstream connections of single client sessions ("links") are bounded: a real stdio server
 * (the reference "everything" server), real MCP clients that declare sampling, and the server
 * processes counted in /proc.
 */
const require = createRequire(import.meta.url);
const EVERYTHING = (() => {
  const manifest = require.resolve('@modelcontextprotocol/server-everything/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string | Record<string, string> };
  return path.join(path.dirname(manifest), typeof bin === 'string' ? bin : (Object.values(bin)[0] as string));
})();

const open: { gateway: Gateway; clients: Client[] }[] = [];
afterEach(async () => {
  for (const { gateway, clients } of open.splice(0)) {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await gateway.close();
  }
});

async function start(
  server: Record<string, unknown> = {},
  raw: Record<string, unknown> = {},
  sessionLinkIdleMs = 300,
) {
  const gateway = await gatewayFrom(
    {
      tools: { builtin: false },
      exposure: 'flat',
      servers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], ...server } },
      ...raw,
    },
    { sessionLinkIdleMs },
  );
  const entry = { gateway, clients: [] as Client[] };
  open.push(entry);
  await gateway.whenReady();
  const { url } = await gateway.serveHttp('127.0.0.1', 0);
  const everything = gateway.downstream[0];
  if (!everything) throw new Error('no downstream server');
  /** A client that declares sampling and answers every sampling request with `answer`. */
  const sampler = async (answer: string) => {
    const client = new Client({ name: answer, version: '1' }, { capabilities: { sampling: {} } });
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: 'm',
      role: 'assistant',
      content: { type: 'text', text: answer },
    }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    entry.clients.push(client);
    return client;
  };
  return { gateway, everything, sampler };
}

/** Live `everything` server processes started by this test process. */
function everythingProcesses(): number {
  let count = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('server-everything')) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

function text(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
}

describe('session links are bounded', () => {
  it('many sampling-capable sessions calling at once open at most maxSessionLinks processes', async () => {
    const { everything, sampler } = await start({ maxSessionLinks: 3 });
    const clients = await Promise.all(Array.from({ length: 12 }, (_, i) => sampler(`client-${i}`)));
    const results = await Promise.all(
      clients.map((c, i) => c.callTool({ name: 'everything__echo', arguments: { message: `m${i}` } })),
    );
    expect(results.map(text)).toEqual(clients.map((_, i) => `Echo: m${i}`));
    expect(everything.sessionLinks).toBeLessThanOrEqual(3);
    // The shared connection plus at most three links.
    expect(everythingProcesses()).toBeLessThanOrEqual(4);
  });

  it('sessions whose calls never ask the client anything share the connection', async () => {
    const { everything, sampler } = await start();
    const first = await sampler('first');
    expect(text(await first.callTool({ name: 'everything__echo', arguments: { message: 'a' } }))).toBe(
      'Echo: a',
    );
    // Once echo was seen to finish without asking anything, further sessions share.
    const later = await Promise.all(Array.from({ length: 10 }, (_, i) => sampler(`later-${i}`)));
    for (const client of later) {
      expect(text(await client.callTool({ name: 'everything__echo', arguments: { message: 'b' } }))).toBe(
        'Echo: b',
      );
    }
    expect(everything.sessionLinks).toBeLessThanOrEqual(1);
    expect(everythingProcesses()).toBeLessThanOrEqual(2);
  });

  it('sampling still reaches the client that made the call, on a link or, past the cap, on the shared connection', async () => {
    const { everything, sampler } = await start({ maxSessionLinks: 1 });
    const ada = await sampler('ANSWER-ADA');
    const bob = await sampler('ANSWER-BOB');
    const sample = (client: Client) =>
      client.callTool({
        name: 'everything__trigger-sampling-request',
        arguments: { prompt: 'hi', maxTokens: 5 },
      });
    // Ada's call keeps her link busy while Bob calls: Bob is past the cap and shares.
    const [a, b] = await Promise.all([sample(ada), sample(bob)]);
    expect(text(a)).toContain('ANSWER-ADA');
    expect(text(b)).toContain('ANSWER-BOB');
    expect(everything.sessionLinks).toBeLessThanOrEqual(1);
  });

  it('an idle link is closed, and its process ends; the session still works after', async () => {
    const { everything, sampler } = await start();
    const base = everythingProcesses();
    const client = await sampler('idle');
    const sample = () =>
      client.callTool({
        name: 'everything__trigger-sampling-request',
        arguments: { prompt: 'hi', maxTokens: 5 },
      });
    expect(text(await sample())).toContain('idle');
    expect(everything.sessionLinks).toBe(1);
    await waitFor('the idle link to close', () => everything.sessionLinks === 0);
    await waitFor('its process to end', () => everythingProcesses() === base);
    expect(text(await sample())).toContain('idle');
  });

  it('a session its client abandoned (no DELETE) expires, and its link with it', async () => {
    // Links stay open for ten minutes here: only the session's expiry can end this one.
    const { gateway, everything, sampler } = await start({}, { http: { sessionIdleMs: 500 } }, 600_000);
    const base = everythingProcesses();
    const sessions = gateway.catalog.listenerCount;
    const client = await sampler('abandoning');
    expect(gateway.catalog.listenerCount).toBe(sessions + 1);
    await client.callTool({
      name: 'everything__trigger-sampling-request',
      arguments: { prompt: 'x', maxTokens: 5 },
    });
    expect(everythingProcesses()).toBe(base + 1);
    await waitFor(
      'the abandoned session and its link to be gone',
      () => everything.sessionLinks === 0,
      10_000,
    );
    await waitFor('its process to end', () => everythingProcesses() === base);
    expect(gateway.catalog.listenerCount).toBe(sessions);
  });
});
