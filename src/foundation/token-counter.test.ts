import { describe, expect, it } from 'vitest';
import { GatewayError } from './gateway-error.js';
import { approximateTokenCounter, loadTokenCounter, type TokenEncoding } from './token-counter.js';

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
});
