import { isRecord } from './is-record.js';
import { ownValue, setOwn } from './own-key.js';

/**
 * Applies a JSON merge patch (RFC 7396) to `target` and returns the result; neither argument is
 * changed. An object patch merges key by key: `null` removes the key, an object recurses, anything
 * else (arrays included) replaces. A patch that is not an object replaces the target whole.
 *
 * Every key is plain data, `__proto__`, `constructor` and `prototype` included: a key is read only
 * as an own property and written with `defineProperty`, so a patch can neither replace an object's
 * prototype nor reach an inherited value (a JSON Schema may name a property `__proto__`).
 *
 * Written out rather than taken from a package: the RFC's algorithm is these few lines, and the
 * packages for it also ship generation and diffing the gateway has no use for.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, applyMergePatch(ownValue(result, key), value));
  }
  return result;
}
