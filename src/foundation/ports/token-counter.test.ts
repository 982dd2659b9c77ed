import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  knownTokenCountsOf,
  NO_KNOWN_TOKEN_COUNTS,
  readKnownTokenCounts,
  tokenCountKey,
} from '../known-token-counts.js';
import { GatewayError } from '../model/gateway-error.js';
import { MemoryStateStore } from './memory-state-store.js';
import type { StateStore } from './state-store.js';
import {
  approximateTokenCounter,
  loadTokenCounter,
  MAX_REMEMBERED_TOKEN_COUNTS,
  TOKEN_COUNT_SCOPE,
  type TokenEncoding,
} from './token-counter.js';

const require = createRequire(import.meta.url);
/** The tokenizer itself, to compare with. */
const o200k: { countTokens(text: string): number } = require('gpt-tokenizer/encoding/o200k_base');

describe('TokenCounter', () => {
  it('counts with the real o200k tokenizer: words, not characters', async () => {
    const counter = await loadTokenCounter();
    expect(counter.encoding).toBe('o200k_base');
    expect(counter.count('')).toBe(0);
    expect(counter.count('hello world')).toBe(2);
    // A long common word is one token; the character estimate would say 3.
    expect(counter.count('international')).toBe(1);
    expect(approximateTokenCounter.count('international')).toBe(4);
  });

  it('counts cl100k differently from o200k where their vocabularies differ', async () => {
    const [o200k, cl100k] = await Promise.all([
      loadTokenCounter('o200k_base'),
      loadTokenCounter('cl100k_base'),
    ]);
    const text = 'Сколько времени сейчас в Токио?';
    expect(o200k.count(text)).toBeGreaterThan(0);
    expect(cl100k.count(text)).toBeGreaterThan(o200k.count(text));
  });

  it('loads each encoding once', async () => {
    expect(await loadTokenCounter('o200k_base')).toBe(await loadTokenCounter('o200k_base'));
  });

  it('refuses an unknown encoding with config_invalid', async () => {
    const failure = await loadTokenCounter('p50k' as TokenEncoding).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).code).toBe('config_invalid');
  });

  it('answers a known text from the known counts, and counts any other text with the tokenizer, exactly', async () => {
    const known = 'A text whose count the build stored.';
    // A count the tokenizer would never give: seeing it proves the table answered.
    const counter = await loadTokenCounter('o200k_base', {
      known: knownTokenCountsOf({ o200k_base: { [tokenCountKey(known)]: 999 } }),
    });
    expect(counter.count(known)).toBe(999);
    // One character more is another text: a table left from older definitions only misses.
    const edited = `${known} `;
    expect(counter.count(edited)).toBe(o200k.countTokens(edited));
    const unknown = 'international international';
    expect(counter.count(unknown)).toBe(2);
    expect(counter.count(unknown)).toBe(o200k.countTokens(unknown));
  });

  it("uses only the counting encoding's known counts", async () => {
    const text = 'Counted for one encoding only.';
    const known = knownTokenCountsOf({ cl100k_base: { [tokenCountKey(text)]: 999 } });
    const counter = await loadTokenCounter('o200k_base', { known });
    expect(counter.count(text)).toBe(o200k.countTokens(text));
  });

  it('gives a counter of its own for given known counts, the shared one otherwise', async () => {
    const shared = await loadTokenCounter('o200k_base');
    expect(await loadTokenCounter('o200k_base', { known: NO_KNOWN_TOKEN_COUNTS })).not.toBe(shared);
  });
});

describe('remembered token counts', () => {
  const text = 'A tool description of a user catalog, not shipped with the package.';

  it("keeps the tokenizer's count in the store, and a later counter answers from it", async () => {
    const store = new MemoryStateStore();
    const first = await loadTokenCounter('o200k_base', { known: NO_KNOWN_TOKEN_COUNTS, store });
    expect(first.count(text)).toBe(o200k.countTokens(text));
    const key = `o200k_base:${tokenCountKey(text)}`;
    expect(store.get(TOKEN_COUNT_SCOPE, key)).toBe(o200k.countTokens(text));
    // A count only the store could give proves the next counter (a restart) read it.
    store.set(TOKEN_COUNT_SCOPE, key, 999);
    const second = await loadTokenCounter('o200k_base', { known: NO_KNOWN_TOKEN_COUNTS, store });
    expect(second.count(text)).toBe(999);
    // Per encoding: cl100k does not take o200k's count.
    const cl100k = await loadTokenCounter('cl100k_base', { known: NO_KNOWN_TOKEN_COUNTS, store });
    expect(cl100k.count(text)).not.toBe(999);
  });

  it('counts with the tokenizer when the store holds nonsense or fails', async () => {
    const store = new MemoryStateStore();
    store.set(TOKEN_COUNT_SCOPE, `o200k_base:${tokenCountKey(text)}`, 'many');
    const counter = await loadTokenCounter('o200k_base', { known: NO_KNOWN_TOKEN_COUNTS, store });
    expect(counter.count(text)).toBe(o200k.countTokens(text));
    const failing: StateStore = Object.assign(new MemoryStateStore(), {
      get: () => {
        throw new Error('store closed');
      },
      set: () => {
        throw new Error('store closed');
      },
    });
    const unaffected = await loadTokenCounter('o200k_base', { known: NO_KNOWN_TOKEN_COUNTS, store: failing });
    expect(unaffected.count(text)).toBe(o200k.countTokens(text));
  });

  it('empties the scope once it holds the most it keeps', async () => {
    const store = new MemoryStateStore();
    store.setMany(
      TOKEN_COUNT_SCOPE,
      Array.from({ length: MAX_REMEMBERED_TOKEN_COUNTS }, (_, i) => [`o200k_base:old-${i}`, 1] as const),
    );
    const counter = await loadTokenCounter('o200k_base', { known: NO_KNOWN_TOKEN_COUNTS, store });
    counter.count(text);
    expect(store.count(TOKEN_COUNT_SCOPE)).toBe(1);
    expect(store.get(TOKEN_COUNT_SCOPE, `o200k_base:${tokenCountKey(text)}`)).toBe(o200k.countTokens(text));
  });
});

describe('known token counts', () => {
  it('keys a text by its exact bytes', () => {
    expect(tokenCountKey('tools/list')).toBe(tokenCountKey('tools/list'));
    expect(tokenCountKey('tools/list')).not.toBe(tokenCountKey('tools/list '));
    expect(tokenCountKey('é')).not.toBe(tokenCountKey('e\u0301'));
  });

  it('reads a table from a file; a missing or broken file gives none', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aperture-known-counts-'));
    try {
      const file = path.join(dir, 'token-counts.json');
      writeFileSync(file, JSON.stringify({ o200k_base: { abc: 3, bad: -1, worse: 'x' }, cl100k_base: 7 }));
      const known = readKnownTokenCounts(file);
      expect([...(known.get('o200k_base') ?? [])]).toEqual([['abc', 3]]);
      expect(known.has('cl100k_base')).toBe(false);
      writeFileSync(file, '{"o200k_base":');
      expect(readKnownTokenCounts(file).size).toBe(0);
      expect(readKnownTokenCounts(path.join(dir, 'absent.json')).size).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
