import { createHash } from 'node:crypto';
import type { Tool } from '../../foundation/model/tool.js';
import { type CallerContext, callerKey } from '../../foundation/ports/tool-backend.js';
import { canonicalJson } from './canonical-json.js';

/**
 * Whose calls may share cached results: `scope` — callers in the same toolset scope (the same
 * toolset, the same set of toolsets granted); `identity` — additionally only the same identity,
 * for tools whose answers depend on who asks (the identity and how it was proven: `callerKey`).
 */
export type CachePartition = 'scope' | 'identity';

/** The caller's share of the key: the scope (and identity) its results may be served to. */
export function callerPartition(caller: CallerContext, partition: CachePartition): string {
  const granted = caller.toolsets;
  const scope = [caller.toolset ?? null, granted ? [...granted].sort() : null];
  return JSON.stringify(partition === 'identity' ? [...scope, callerKey(caller)] : scope);
}

const fingerprints = new WeakMap<Tool, string>();

/**
 * What makes a tool the same tool across catalog updates: its id, origin and schemas, as a short
 * digest. A tool re-listed with another schema gets another fingerprint, so results cached for the
 * old one are never served for the new one. Computed once per tool object (tools are immutable).
 */
function fingerprint(tool: Tool): string {
  let value = fingerprints.get(tool);
  if (value === undefined) {
    value = digest(canonicalJson([tool.id, tool.origin, tool.inputSchema, tool.outputSchema ?? null]));
    fingerprints.set(tool, value);
  }
  return value;
}

/** Arguments longer than this (as canonical JSON) are hashed into the key rather than kept whole. */
const INLINE_ARGS_MAX = 256;

/**
 * The cache key of a call: the tool id, its fingerprint, the caller's partition and the canonical
 * JSON of the arguments — so argument key order does not matter. Short arguments are kept as they
 * are (hashing costs more than the rest of a cache hit); longer ones as a SHA-256, so a key stays
 * small whatever the arguments. The `=` / `#` marker keeps the two forms from ever colliding.
 */
export function resultCacheKey(tool: Tool, args: Record<string, unknown>, partition: string): string {
  const json = canonicalJson(args);
  const argsPart = json.length <= INLINE_ARGS_MAX ? `=${json}` : `#${digest(json)}`;
  return `${tool.id}\u0000${fingerprint(tool)}\u0000${partition}\u0000${argsPart}`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
