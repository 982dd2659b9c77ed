import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

const MODERN = '2026-07-28';
const VERSION_KEY = 'aperture/catalogVersion';

interface Listed {
  ttlMs: number;
  cacheScope: string;
  version: string;
  names: string[];
}

/** `tools/list` as a 2026-07-28 client sends it, with the caching fields of the answer. */
async function listTools(url: string, headers: Record<string, string> = {}): Promise<Listed> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/list',
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    result: { ttlMs: number; cacheScope: string; _meta?: Record<string, string>; tools: { name: string }[] };
  };
  return {
    ttlMs: body.result.ttlMs,
    cacheScope: body.result.cacheScope,
    version: body.result._meta?.[VERSION_KEY] ?? '',
    names: body.result.tools.map((tool) => tool.name),
  };
}

const FIXTURE = path.join(ROOT, 'test/fixtures/conformance/stdio.mjs');

const config = (withServer: boolean, apiKeys?: unknown) =>
  JSON.stringify({
    tools: { builtin: true },
    ...(withServer
      ? { servers: { extra: { command: process.execPath, args: [FIXTURE], cwd: path.dirname(FIXTURE) } } }
      : {}),
    exposure: 'flat',
    ...(apiKeys ? { auth: { apiKeys } } : {}),
    http: { cacheHintMaxTtlMs: 600_000 },
  });

describe('caching hints of 2026-07-28 results follow the catalog', () => {
  let dir: string;
  let file: string;
  let gateway: RunningGateway;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-cache-hints-'));
    file = path.join(dir, 'aperture.yaml');
    await writeFile(file, config(false));
    gateway = await startHttpGateway(['--config', file]);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it('grows the TTL while the catalog holds, stamps the version, and starts again at 0 when it changes', async () => {
    const url = `${gateway.url}/mcp`;
    const first = await listTools(url);
    expect(first.cacheScope).toBe('public');
    expect(first.version).toMatch(/^[0-9a-f]{16}$/);
    expect(first.names.length).toBeGreaterThan(0);
    // The catalog holds: the TTL grows (half of how long it has held).
    await vi.waitFor(async () => expect((await listTools(url)).ttlMs).toBeGreaterThanOrEqual(1_000), {
      timeout: 20_000,
      interval: 200,
    });
    const held = await listTools(url);
    expect(held.version).toBe(first.version);

    // The SDK v2 client of the 2026-07-28 revision sees the same version on the list it gets.
    const client = new Client(
      { name: 'cache-hints', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const listed = await client.listTools();
      expect(listed._meta?.[VERSION_KEY]).toBe(first.version);
    } finally {
      await client.close();
    }

    // A server is added: another list, another version, and a TTL back at (nearly) 0.
    await writeFile(file, config(true));
    await vi
      .waitFor(async () => expect((await listTools(url)).version).not.toBe(first.version), {
        timeout: 30_000,
      })
      .catch((error) => {
        throw new Error(`${error}\n${gateway.stderr().slice(-3000)}`);
      });
    const changed = await listTools(url);
    expect(changed.names).not.toEqual(first.names);
    // Dated at the first answer after the change: well under what it had grown to.
    expect(changed.ttlMs).toBeLessThan(1_000);
    expect(held.ttlMs).toBeGreaterThanOrEqual(1_000);
  }, 60_000);
});

describe('caching hints for callers who may see different tools', () => {
  let dir: string;
  let gateway: RunningGateway;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-cache-hints-auth-'));
    const file = path.join(dir, 'aperture.yaml');
    await writeFile(file, config(false, [{ name: 'ci', key: 'k'.repeat(32) }]));
    gateway = await startHttpGateway(['--config', file]);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps an authenticated caller’s list private', async () => {
    const listed = await listTools(`${gateway.url}/mcp`, { authorization: `Bearer ${'k'.repeat(32)}` });
    expect(listed.cacheScope).toBe('private');
    expect(listed.version).toMatch(/^[0-9a-f]{16}$/);
  });
});
