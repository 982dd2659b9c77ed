import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { GatewayError } from '../../../foundation/model/gateway-error.js';

/** Seals and opens JSON values with AES-256-GCM under one key (`state.tokenKey`). */
export interface TokenCipher {
  /** `value` as JSON, encrypted and authenticated: `v1.<base64 iv|tag|ciphertext>`. */
  seal(value: unknown): string;
  /** The value `seal` was given; throws `config_invalid` when the key is not the one it was sealed with. */
  open(sealed: string): unknown;
}

const VERSION = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A cipher keyed by `secret` (any string: a passphrase or random bytes in text form). The AES key
 * is derived with HKDF-SHA256 so that a short or structured secret still gives a uniform 256-bit
 * key, and so that the same secret used elsewhere never is this key. Each value gets a fresh
 * random IV; GCM's tag makes tampering, or a different key, fail loudly instead of decrypting
 * into garbage.
 */
export function createTokenCipher(secret: string): TokenCipher {
  if (secret.length < 16) {
    throw new GatewayError('config_invalid', 'state.tokenKey must be at least 16 characters', {
      details: { path: 'state.tokenKey' },
    });
  }
  const key = Buffer.from(hkdfSync('sha256', secret, 'aperture', 'aperture oauth tokens v1', 32));
  return {
    seal(value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
      return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed) {
      if (!sealed.startsWith(VERSION)) throw unreadable();
      const raw = Buffer.from(sealed.slice(VERSION.length), 'base64');
      if (raw.length < IV_BYTES + TAG_BYTES) throw unreadable();
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      try {
        const text = Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
          decipher.final(),
        ]).toString('utf8');
        return JSON.parse(text) as unknown;
      } catch {
        throw unreadable();
      }
    },
  };
}

function unreadable(): GatewayError {
  return new GatewayError(
    'config_invalid',
    'stored OAuth tokens cannot be decrypted with state.tokenKey (the key changed?); log in again',
    { details: { path: 'state.tokenKey' } },
  );
}
