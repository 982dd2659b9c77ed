import { createHash } from 'node:crypto';

/** MCP tool names in flat exposure must match this (and most LLM providers accept it too). */
export const FLAT_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const HASH_LENGTH = 8;

export interface FlatNameOptions {
  /** `false` keeps the tool's own name (a downstream server with `prefix: false`). Default true. */
  prefix?: boolean;
}

/**
 * The name a tool has in flat exposure: `namespace__name`, or `name` without prefix. A pure,
 * deterministic function of its inputs. Characters outside `[a-zA-Z0-9_-]` become `_`; when the
 * name had to be changed or is longer than 64 characters a short hash of the unmodified name is
 * appended, so two different tools never collide on a sanitised or shortened form.
 */
export function flatToolName(namespace: string, name: string, options: FlatNameOptions = {}): string {
  const raw = options.prefix === false ? name : `${namespace}__${name}`;
  const sanitized = raw.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (sanitized === raw && raw.length <= MAX && raw.length > 0) return raw;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, HASH_LENGTH);
  const head = sanitized.slice(0, MAX - HASH_LENGTH - 1);
  return `${head}_${hash}`;
}
