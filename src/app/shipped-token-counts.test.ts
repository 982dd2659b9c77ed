import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config/load-config.js';
import { NO_KNOWN_TOKEN_COUNTS, tokenCountKey } from '../foundation/known-token-counts.js';
import { silentLogger } from '../foundation/ports/logger.js';
import { loadTokenCounter, TOKEN_ENCODINGS } from '../foundation/ports/token-counter.js';
import { Gateway } from './gateway.js';
import { shippedTokenCounts, shippedTokenTexts } from './shipped-token-counts.js';

/** Every text the gateway's token counters were asked to count, in this file's tests. */
const counted = vi.hoisted(() => new Set<string>());
vi.mock('../foundation/ports/token-counter.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../foundation/ports/token-counter.js')>();
  return {
    ...original,
    loadTokenCounter: async (...args: Parameters<typeof original.loadTokenCounter>) => {
      const counter = await original.loadTokenCounter(...args);
      return {
        encoding: counter.encoding,
        count: (text: string) => {
          counted.add(text);
          return counter.count(text);
        },
      };
    },
  };
});

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('shipped token counts', () => {
  it("cover every text a default gateway's session counts for its first tools/list", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aperture-shipped-counts-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    // No config file: the built-in catalog with exposure auto, as `aperture serve --stdio` starts.
    const loaded = await loadConfig({ cwd: dir, env: {} });
    expect(loaded.config.exposure.mode).toBe('auto');
    const gateway = await Gateway.create({ loaded, log: silentLogger, stateDir: path.join(dir, 'state') });
    cleanups.push(() => gateway.close());
    const { server, dispose } = gateway.createSession({
      caller: { identity: 'local' },
      scope: gateway.scope,
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'shipped-counts-test', version: '1.0.0' });
    await client.connect(clientSide);
    cleanups.push(async () => {
      await client.close();
      dispose();
    });
    counted.clear();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('search_tools');
    expect(counted.size).toBeGreaterThan(0);
    const shipped = new Set(shippedTokenTexts());
    expect([...counted].filter((text) => !shipped.has(text))).toEqual([]);
  });

  it("are the tokenizer's own counts of the shipped texts, in every encoding", async () => {
    const texts = shippedTokenTexts();
    const counts = await shippedTokenCounts();
    expect(Object.keys(counts).sort()).toEqual([...TOKEN_ENCODINGS].sort());
    for (const encoding of TOKEN_ENCODINGS) {
      const tokenizer = await loadTokenCounter(encoding, { known: NO_KNOWN_TOKEN_COUNTS });
      const table = counts[encoding] ?? {};
      expect(Object.keys(table)).toHaveLength(texts.length);
      for (const text of texts) expect(table[tokenCountKey(text)]).toBe(tokenizer.count(text));
    }
  });

  it('ship with the build, counted from the definitions as they are now', async () => {
    const file = fileURLToPath(new URL('../../dist/token-counts.json', import.meta.url));
    // The e2e suites run the built CLI too; a missing file means the build did not run.
    expect(existsSync(file), 'dist/token-counts.json is missing: run `npm run build`').toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(await shippedTokenCounts());
  });
});
