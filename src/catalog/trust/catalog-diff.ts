import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import { isRecord } from '../../foundation/util/is-record.js';
import {
  changedFields,
  FINGERPRINT_FIELDS,
  type FingerprintField,
  fingerprintTool,
  isFingerprintHash,
  LATER_FINGERPRINT_FIELDS,
  type ToolFingerprint,
} from './tool-fingerprint.js';

/** The `format` marker of a snapshot file, so a diff refuses any other JSON. */
export const SNAPSHOT_FORMAT = 'aperture-catalog-snapshot';

/** What `aperture catalog snapshot` writes: every visible tool's fingerprint. */
export interface CatalogSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: 1;
  /** ISO time of the snapshot. */
  createdAt: string;
  tools: Record<string, ToolFingerprint>;
}

/** What changed between two snapshots, tool by tool. */
export interface CatalogDiff {
  added: string[];
  removed: string[];
  changed: { id: string; fields: FingerprintField[] }[];
  unchanged: number;
}

/** A snapshot of `tools` (ids sorted, so two snapshots of one catalog are the same text but the time). */
export function createSnapshot(tools: readonly Tool[], at: Date): CatalogSnapshot {
  const entries = [...tools].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    format: SNAPSHOT_FORMAT,
    version: 1,
    createdAt: at.toISOString(),
    tools: Object.fromEntries(entries.map((tool) => [tool.id, fingerprintTool(tool)])),
  };
}

/**
 * Reads a snapshot file's text. Throws `invalid_request` naming the file and what is wrong: a
 * user who passes the wrong file must learn so, not get a diff that says everything was added.
 */
export function parseSnapshot(text: string, file: string): CatalogSnapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GatewayError('invalid_request', `${file} is not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value) || value.format !== SNAPSHOT_FORMAT || value.version !== 1 || !isRecord(value.tools)) {
    throw new GatewayError(
      'invalid_request',
      `${file} is not a catalog snapshot (write one with \`aperture catalog snapshot --out ${file}\`)`,
    );
  }
  for (const [id, entry] of Object.entries(value.tools)) {
    const valid =
      isRecord(entry) &&
      typeof entry.hash === 'string' &&
      isFingerprintHash(entry.hash) &&
      isRecord(entry.fields) &&
      FINGERPRINT_FIELDS.every((field) => {
        const hash = (entry.fields as Record<string, unknown>)[field];
        return typeof hash === 'string' || (hash === undefined && LATER_FINGERPRINT_FIELDS.includes(field));
      });
    if (!valid) throw new GatewayError('invalid_request', `${file}: the fingerprint of "${id}" is malformed`);
  }
  return value as unknown as CatalogSnapshot;
}

/** Tools added, removed and changed (with the fields that changed) from `before` to `after`. */
export function diffSnapshots(before: CatalogSnapshot, after: CatalogSnapshot): CatalogDiff {
  const diff: CatalogDiff = { added: [], removed: [], changed: [], unchanged: 0 };
  for (const [id, now] of Object.entries(after.tools)) {
    const then = before.tools[id];
    if (!then) diff.added.push(id);
    else if (then.hash === now.hash) diff.unchanged++;
    else diff.changed.push({ id, fields: changedFields(then, now) });
  }
  for (const id of Object.keys(before.tools)) if (!(id in after.tools)) diff.removed.push(id);
  diff.added.sort();
  diff.removed.sort();
  diff.changed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return diff;
}

/** True when the diff has anything to report. */
export function hasDrift(diff: CatalogDiff): boolean {
  return diff.added.length + diff.removed.length + diff.changed.length > 0;
}

/** The diff as lines for a terminal: `+ id`, `- id`, `~ id  (description, inputSchema)`. */
export function formatDiff(diff: CatalogDiff, since: string): string {
  if (!hasDrift(diff)) return `No change since ${since} (${diff.unchanged} tools).\n`;
  const lines = [
    ...diff.added.map((id) => `+ ${id}  (added)`),
    ...diff.removed.map((id) => `- ${id}  (removed)`),
    ...diff.changed.map(({ id, fields }) => `~ ${id}  (${fields.join(', ')} changed)`),
  ];
  const summary =
    `${diff.added.length} added, ${diff.removed.length} removed, ${diff.changed.length} changed, ` +
    `${diff.unchanged} unchanged since ${since}`;
  return `${lines.join('\n')}\n${summary}\n`;
}
