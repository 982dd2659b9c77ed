import { isSensitiveKey, REDACTED } from '../secrets/sensitive-key.js';

// Re-exported: callers of the call log's redaction find the shared rule here too.
export { isSensitiveKey, REDACTED } from '../secrets/sensitive-key.js';

/** Options of {@link redactArgs}. */
/** The bounds of a redacted copy (the config's `observability.callLogs.maxStringLength` defaults to its own). */
export const REDACT_DEFAULTS = Object.freeze({ maxStringLength: 256, maxItems: 50, maxDepth: 8 });

export interface RedactOptions {
  /** Strings longer than this are cut, with the number of characters left out. Default 256. */
  maxStringLength?: number;
  /** Items kept per array and keys per object. Default 50. */
  maxItems?: number;
  /** Nesting kept; deeper values become `"[…]"`. Default 8. */
  maxDepth?: number;
}

/**
 * A copy of tool arguments fit for a log line: values under sensitive keys (at any depth, in any
 * letter case) replaced by `[REDACTED]`, long strings truncated, and large or deep structures
 * bounded, so that one call can neither leak a credential nor flood the log.
 */
export function redactArgs(value: unknown, options: RedactOptions = {}): unknown {
  const limits = {
    maxStringLength: options.maxStringLength ?? REDACT_DEFAULTS.maxStringLength,
    maxItems: options.maxItems ?? REDACT_DEFAULTS.maxItems,
    maxDepth: options.maxDepth ?? REDACT_DEFAULTS.maxDepth,
  };
  return redact(value, limits, 0);
}

function redact(value: unknown, limits: Required<RedactOptions>, depth: number): unknown {
  if (typeof value === 'string') return truncate(value, limits.maxStringLength);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= limits.maxDepth) return '[…]';
  if (Array.isArray(value)) {
    const items = value.slice(0, limits.maxItems).map((item) => redact(item, limits, depth + 1));
    if (value.length > limits.maxItems) items.push(`[… ${value.length - limits.maxItems} more items]`);
    return items;
  }
  const out: Record<string, unknown> = {};
  let kept = 0;
  let skipped = 0;
  for (const [key, item] of Object.entries(value)) {
    if (kept === limits.maxItems) {
      skipped++;
      continue;
    }
    kept++;
    out[key] = isSensitiveKey(key) ? REDACTED : redact(item, limits, depth + 1);
  }
  if (skipped > 0) out['…'] = `${skipped} more keys`;
  return out;
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…[${text.length - max} more chars]`;
}
