import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT, type RunningGateway, startReadyGateway, stopProcess } from './gateway-process.js';

/**
 * Caching hints of merged lists: two 2026-07-28 servers whose lists carry hints (`h1`: 3 s,
 * public; `h2`: 1.5 s, private) behind `aperture serve` in metatools exposure. A 2026-07-28
 * client's `prompts/list`, `resources/list` and `resources/templates/list` carry the smallest TTL
 * of the sources and `private`, since one source is; a 2025 client's carry no hint.
 */

const FIXTURE = path.join(ROOT, 'test/fixtures/passthrough/hinted-server.mjs');

function startHinted(
  name: string,
  ttlMs: number,
  scope: string,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [FIXTURE], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, HINT_NAME: name, HINT_TTL_MS: String(ttlMs), HINT_SCOPE: scope },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1]) resolve({ child, url: match[1] });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
  });
}

async function connect(url: string, mode: 'auto' | 'legacy'): Promise<Client> {
  const client = new Client({ name: `hints-${mode}`, version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

type Hinted = { ttlMs?: number; cacheScope?: string };

describe('caching hints of lists merged from 2026-07-28 servers', () => {
  let gateway: RunningGateway;
  const fixtures: ChildProcess[] = [];

  beforeAll(async () => {
    const h1 = await startHinted('h1', 3_000, 'public');
    fixtures.push(h1.child);
    const h2 = await startHinted('h2', 1_500, 'private');
    fixtures.push(h2.child);
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { h1: { url: h1.url }, h2: { url: h2.url } },
        exposure: 'metatools',
        observability: { logLevel: 'warn' },
        http: { cacheHintMaxTtlMs: 600_000 },
      },
      'aperture-passthrough-hints-',
    );
  }, 60_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await Promise.all(fixtures.map((child) => stopProcess(child)));
  });

  it('gives the smallest TTL of the sources, private as one source is, once the catalog has held', async () => {
    const client = await connect(gateway.url, 'auto');
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual(['h1__h1_prompt', 'h2__h2_prompt']);
      // The gateway's own hint is a source too: 0 right after its catalog changed, then growing
      // past the sources' 3 s and 1.5 s; from then on the smallest is h2's.
      await vi.waitFor(
        async () => {
          const listed = (await client.listPrompts({}, { cacheMode: 'bypass' })) as Hinted;
          expect(listed.ttlMs).toBe(1_500);
        },
        { timeout: 20_000, interval: 250 },
      );
      for (const listed of [
        (await client.listPrompts({}, { cacheMode: 'bypass' })) as Hinted,
        (await client.listResources({}, { cacheMode: 'bypass' })) as Hinted,
        (await client.listResourceTemplates({}, { cacheMode: 'bypass' })) as Hinted,
      ]) {
        expect(listed).toMatchObject({ ttlMs: 1_500, cacheScope: 'private' });
      }
      const read = await client.readResource({ uri: 'aperture://h1/h1://doc' });
      expect(read.contents[0]).toMatchObject({ uri: 'aperture://h1/h1://doc', text: 'doc of h1' });
    } finally {
      await client.close();
    }
  });

  it('gives a 2025 client its merged lists without hint fields', async () => {
    const client = await connect(gateway.url, 'legacy');
    try {
      const listed = (await client.listPrompts()) as Hinted;
      expect(listed.ttlMs).toBeUndefined();
      expect(listed.cacheScope).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
