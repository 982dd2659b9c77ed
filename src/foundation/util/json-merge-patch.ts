import { isRecord } from './is-record.js';

/**
 * Applies a JSON merge patch (RFC 7396) to `target` and returns the result; neither argument is
 * changed. An object patch merges key by key: `null` removes the key, an object recurses, anything
 * else (arrays included) replaces. A patch that is not an object replaces the target whole.
 *
 * Written out rather than taken from a package: the RFC's algorithm is these few lines, and the
 * packages for it also ship generation and diffing the gateway has no use for.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const result: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
