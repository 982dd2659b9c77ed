import { describe, expect, it } from 'vitest';
import { createTokenCipher } from './token-cipher.js';

const KEY = 'correct horse battery staple';

describe('createTokenCipher', () => {
  it('round-trips a value and never shows it in the sealed text', () => {
    const cipher = createTokenCipher(KEY);
    const value = { access_token: 'at-SECRET-123', refresh_token: 'rt-SECRET-456' };
    const sealed = cipher.seal(value);
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(sealed).not.toContain('SECRET');
    expect(Buffer.from(sealed.slice(3), 'base64').toString('latin1')).not.toContain('SECRET');
    expect(cipher.open(sealed)).toEqual(value);
  });

  it('gives different ciphertexts for the same value (fresh IV)', () => {
    const cipher = createTokenCipher(KEY);
    expect(cipher.seal({ a: 1 })).not.toBe(cipher.seal({ a: 1 }));
  });

  it('refuses another key with config_invalid naming state.tokenKey', () => {
    const sealed = createTokenCipher(KEY).seal({ a: 1 });
    expect(() => createTokenCipher(`${KEY}!`).open(sealed)).toThrow(
      expect.objectContaining({ code: 'config_invalid', details: { path: 'state.tokenKey' } }),
    );
  });

  it('refuses a tampered or truncated value', () => {
    const cipher = createTokenCipher(KEY);
    const sealed = cipher.seal({ token: 'x'.repeat(40) });
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(() => cipher.open(`v1.${raw.toString('base64')}`)).toThrow(/cannot be decrypted/);
    expect(() => cipher.open('v1.AAAA')).toThrow(/cannot be decrypted/);
    expect(() => cipher.open('plain')).toThrow(/cannot be decrypted/);
  });

  it('refuses a key too short to be a key', () => {
    expect(() => createTokenCipher('short')).toThrow(/at least 16 characters/);
  });
});
