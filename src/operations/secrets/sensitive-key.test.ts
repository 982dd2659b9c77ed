import { describe, expect, it } from 'vitest';
import { isSensitiveKey, sensitiveJsonKeyPattern } from './sensitive-key.js';

describe('isSensitiveKey: key material named "...Key"', () => {
  it('counts the token store key and other key material as credentials', () => {
    for (const key of ['tokenKey', 'token_key', 'encryptionKey', 'signing-key', 'masterKey', 'hmac_key']) {
      expect(isSensitiveKey(key), key).toBe(true);
      expect(sensitiveJsonKeyPattern().test(`{"${key}":"x"}`), key).toBe(true);
    }
  });

  it('leaves public and ordinary keys readable', () => {
    for (const key of ['publicKey', 'cacheKey', 'key', 'keys', 'sortKey', 'primaryKey']) {
      expect(isSensitiveKey(key), key).toBe(false);
    }
  });
});
