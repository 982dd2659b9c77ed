import { isDeepStrictEqual } from 'node:util';
import {
  CONFIGURED_DRIVERS,
  SOURCE_SECTION_NAMES,
  type SourceSectionName,
} from '../sources/source-drivers.js';
import type { ApertureConfig } from './config-schema.js';

/** How the entries of one keyed section (servers, agents, overrides, …) differ between two configs. */
export interface KeyedDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

/**
 * How each source section's entries differ, by the key its driver gives them (`servers` and
 * `agents` by key, `openapi` by namespace): what `RemoteSources.apply` stops and starts.
 */
export type SourceSectionsDiff = Record<SourceSectionName, KeyedDiff>;

/** The difference between the running config and a new one, as a reload applies it. */
export type ConfigDiff = SourceSectionsDiff & {
  /** Top-level sections whose value differs, in the new config's key order (then removed ones). */
  sections: string[];
  /** Override entries by key (`*`, `ns`, `ns:tool`). */
  overrides: KeyedDiff;
  /** True when nothing at all differs. */
  unchanged: boolean;
};

/**
 * Compares two validated configs. Sections are compared generically, by deep equality of whatever
 * the schema produced, so a section added to the schema later shows up here without more code;
 * the source drivers' sections, which a reload applies entry by entry, and the overrides are also
 * broken down per entry.
 */
export function diffConfig(before: ApertureConfig, after: ApertureConfig): ConfigDiff {
  const sections = changedKeys(before as Record<string, unknown>, after as Record<string, unknown>);
  return {
    sections,
    ...diffSourceSections(before, after),
    overrides: diffOverrides(before.overrides, after.overrides),
    unchanged: sections.length === 0,
  };
}

/** Each source section's entries compared by their drivers' keys. */
function diffSourceSections(before: ApertureConfig, after: ApertureConfig): SourceSectionsDiff {
  const diffs: Partial<SourceSectionsDiff> = {};
  for (const { section } of CONFIGURED_DRIVERS) {
    const entries = (config: ApertureConfig) => Object.fromEntries(section.entries(config[section.name]));
    diffs[section.name] = diffRecords(entries(before), entries(after));
  }
  return diffs as SourceSectionsDiff;
}

/** The per-entry diffs of the source drivers' sections alone, in the drivers' order. */
export function sourceSectionsOf(diff: ConfigDiff): SourceSectionsDiff {
  return Object.fromEntries(SOURCE_SECTION_NAMES.map((name) => [name, diff[name]])) as SourceSectionsDiff;
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
