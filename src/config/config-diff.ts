import { isDeepStrictEqual } from 'node:util';
import type { ApertureConfig } from './config-schema.js';

/** How the entries of one keyed section (servers, agents, overrides, …) differ between two configs. */
export interface KeyedDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/** The difference between the running config and a new one, as a reload applies it. */
export interface ConfigDiff {
  /** Top-level sections whose value differs, in the new config's key order (then removed ones). */
  sections: string[];
  /** Downstream MCP servers by key. */
  servers: KeyedDiff;
  /** OpenAPI services by namespace. */
  openapi: KeyedDiff;
  /** A2A agents by key. */
  agents: KeyedDiff;
  /** Override entries by key (`*`, `ns`, `ns:tool`). */
  overrides: KeyedDiff;
  /** True when nothing at all differs. */
  unchanged: boolean;
}

/**
 * Compares two validated configs. Sections are compared generically, by deep equality of whatever
 * the schema produced, so a section added to the schema later shows up here without more code;
 * the keyed sections a reload applies entry by entry are also broken down per entry.
 */
export function diffConfig(before: ApertureConfig, after: ApertureConfig): ConfigDiff {
  const sections = changedKeys(before as Record<string, unknown>, after as Record<string, unknown>);
  return {
    sections,
    servers: diffRecords(before.servers, after.servers),
    openapi: diffRecords(byNamespace(before.openapi), byNamespace(after.openapi)),
    agents: diffRecords(before.agents, after.agents),
    overrides: diffOverrides(before.overrides, after.overrides),
    unchanged: sections.length === 0,
  };
}

/** How the entries of two records differ, keys in the order of `after` (removed ones last). */
export function diffRecords(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): KeyedDiff {
  const added: string[] = [];
  const changed: string[] = [];
  for (const [key, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, key)) added.push(key);
    else if (!isDeepStrictEqual(before[key], value)) changed.push(key);
  }
  const removed = Object.keys(before).filter((key) => !Object.hasOwn(after, key));
  return { added, removed, changed };
}

/** The top-level keys whose values differ (present on one side only counts as differing). */
function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(after), ...Object.keys(before)])];
  return keys.filter((key) => !isDeepStrictEqual(before[key], after[key]));
}

function byNamespace<T extends { namespace: string }>(entries: readonly T[]): Record<string, T> {
  return Object.fromEntries(entries.map((entry) => [entry.namespace, entry]));
}

/**
 * Overrides are inline entries today; the section may grow other shapes (files, folders). Whatever
 * is not a plain record is compared as one entry, `(overrides)`, so a change is still reported.
 */
function diffOverrides(before: unknown, after: unknown): KeyedDiff {
  if (isPlainRecord(before) && isPlainRecord(after)) return diffRecords(before, after);
  return isDeepStrictEqual(before, after)
    ? { added: [], removed: [], changed: [] }
    : { added: [], removed: [], changed: ['(overrides)'] };
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
