import { createHash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { AuthIdentity } from './auth-identity.js';

/** One configured API key (config `auth.apiKeys`). */
export interface ApiKeyEntry {
  /** The identity the key proves (logs, rate limits, session ownership). */
  name: string;
  key: string;
  /** Toolsets the key is confined to; absent: the whole catalog. */
  toolsets?: readonly string[] | undefined;
  /** An administrator key (metrics, readiness details). */
  admin?: boolean | undefined;
  /** Roles of `auth.roles` the key holds (their grants are applied by the authenticator). */
  roles?: readonly string[] | undefined;
}

interface StoredKey {
  digest: Buffer;
  identity: AuthIdentity;
}

function digestOf(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Checks presented API keys against the configured ones in constant time: every key is compared
 * (no early exit), as SHA-256 digests of equal length with `crypto.timingSafeEqual`, so neither
 * the position of a match nor a common prefix shows in the response time. Only digests are kept.
 */
export class ApiKeyVerifier {
  private readonly keys: StoredKey[];

  constructor(entries: readonly ApiKeyEntry[]) {
    const names = new Set<string>();
    const digests = new Set<string>();
    this.keys = entries.map((entry, index) => {
      if (entry.key.length === 0) throw invalidEntry(index, 'key', 'must not be empty');
      if (names.has(entry.name)) throw invalidEntry(index, 'name', `duplicate key name "${entry.name}"`);
      const digest = digestOf(entry.key);
      const hex = digest.toString('hex');
      if (digests.has(hex)) throw invalidEntry(index, 'key', 'the same key is configured twice');
      names.add(entry.name);
      digests.add(hex);
      const identity: AuthIdentity = { identity: entry.name, method: 'api_key' };
      if (entry.toolsets !== undefined) identity.toolsets = Object.freeze([...entry.toolsets]);
      if (entry.admin === true) identity.admin = true;
      if (entry.roles !== undefined && entry.roles.length > 0)
        identity.roles = Object.freeze([...entry.roles]);
      return { digest, identity };
    });
  }

  get size(): number {
    return this.keys.length;
  }

  /** The identity of `presented`, or undefined when it is no configured key. */
  verify(presented: string): AuthIdentity | undefined {
    const digest = digestOf(presented);
    let found: AuthIdentity | undefined;
    for (const key of this.keys) {
      // `&&` would skip the comparison after a match; both sides always run.
      const equal = timingSafeEqual(digest, key.digest);
      if (equal && found === undefined) found = key.identity;
    }
    return found;
  }
}

function invalidEntry(index: number, field: string, message: string): GatewayError {
  return new GatewayError('config_invalid', `auth.apiKeys[${index}].${field}: ${message}`, {
    details: { path: `auth.apiKeys.${index}.${field}` },
  });
}
