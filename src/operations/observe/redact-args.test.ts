import { describe, expect, it } from 'vitest';
import { isSensitiveKey, REDACTED, redactArgs } from './redact-args.js';

describe('isSensitiveKey', () => {
  it('matches credential names in any case and spelling, and names ending in one', () => {
    for (const key of [
      'api_key',
      'API-KEY',
      'apiKey',
      'X-Api-Key',
      'token',
      'access_token',
      'githubToken',
      'password',
      'db_password',
      'Secret',
      'client_secret',
      'Authorization',
      'proxy-authorization',
      'cookie',
      'Set-Cookie',
      'private_key',
      'aws_secret_access_key',
      'credentials',
    ]) {
      expect(isSensitiveKey(key), key).toBe(true);
    }
  });

  it('leaves names that merely contain one alone', () => {
    for (const key of ['max_tokens', 'tokenizer', 'author', 'secretary_name', 'query', 'path', 'keys']) {
      expect(isSensitiveKey(key), key).toBe(false);
    }
  });
});

describe('redactArgs', () => {
  it('replaces values under sensitive keys at any depth, objects and arrays included', () => {
    const args = {
      query: 'weather',
      API_KEY: 'sk-live-1',
      nested: { deeper: [{ Token: 'tok-2', keep: 1 }], auth: { user: 'u', pass: 'p' } },
      headers: { Authorization: 'Bearer abc', accept: 'json' },
    };
    const out = redactArgs(args);
    expect(out).toEqual({
      query: 'weather',
      API_KEY: REDACTED,
      nested: { deeper: [{ Token: REDACTED, keep: 1 }], auth: REDACTED },
      headers: { Authorization: REDACTED, accept: 'json' },
    });
    const text = JSON.stringify(out);
    for (const secret of ['sk-live-1', 'tok-2', 'Bearer abc', '"p"']) expect(text).not.toContain(secret);
    // The input is not changed.
    expect(args.API_KEY).toBe('sk-live-1');
  });

  it('truncates long strings and says by how much', () => {
    const out = redactArgs({ text: 'x'.repeat(300) }, { maxStringLength: 10 }) as { text: string };
    expect(out.text).toBe(`${'x'.repeat(10)}…[290 more chars]`);
    expect(redactArgs('short', { maxStringLength: 10 })).toBe('short');
  });

  it('bounds arrays, objects and depth', () => {
    const out = redactArgs(
      { list: Array.from({ length: 5 }, (_, i) => i), deep: { a: { b: { c: 1 } } } },
      { maxItems: 3, maxDepth: 3 },
    ) as Record<string, unknown>;
    expect(out.list).toEqual([0, 1, 2, '[… 2 more items]']);
    expect(out.deep).toEqual({ a: { b: '[…]' } });
    const wide = redactArgs(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`k${i}`, i])), {
      maxItems: 2,
    });
    expect(wide).toEqual({ k0: 0, k1: 1, '…': '3 more keys' });
  });

  it('passes scalars through', () => {
    expect(redactArgs(null)).toBeNull();
    expect(redactArgs(3)).toBe(3);
    expect(redactArgs(true)).toBe(true);
  });
});
