import { createHash } from 'node:crypto';
import type { Tool } from '../../foundation/model/tool.js';

/**
 * The parts of a tool a fingerprint covers: what a model reads and what decides what it sends,
 * and its MCP App (`ui`: the `ui://` page a host renders and who may see the tool — a tool turned
 * from app-only to model-visible is a change). Tags, metadata and examples are left out on
 * purpose — they are the gateway's own curation (overrides), and a change in them cannot carry
 * instructions a downstream server slipped in.
 */
export const FINGERPRINT_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'ui',
] as const;

/**
 * Fields added after fingerprints were first stored: a stored fingerprint without one reads as
 * the field absent (`-`), and the whole hash of a tool without it is what it was before.
 */
export const LATER_FINGERPRINT_FIELDS: readonly FingerprintField[] = ['ui'];

/** One of {@link FINGERPRINT_FIELDS}. */
export type FingerprintField = (typeof FINGERPRINT_FIELDS)[number];

/** A tool's fingerprint: one hash over every covered field, and one per field to tell what changed. */
export interface ToolFingerprint {
  /** `sha256:<hex>` of the canonical JSON of every covered field. */
  hash: string;
  /** Per field, a short hash of its canonical JSON (`-` when the field is absent). */
  fields: Record<FingerprintField, string>;
}

/** Hashed `Tool` objects: a source re-publishing an unchanged tool hands over the same object. */
const cache = new WeakMap<Tool, ToolFingerprint>();

/**
 * The fingerprint of a tool. Object keys are sorted before hashing, so a server that sends the
 * same schema with its keys in another order keeps its fingerprint; array order counts (`enum`,
 * `required` order is the server's choice, but a reordered `enum` is still the same set — a
 * false "changed" is the safe side of that trade).
 */
export function fingerprintTool(tool: Tool): ToolFingerprint {
  const known = cache.get(tool);
  if (known) return known;
  const fields = {} as Record<FingerprintField, string>;
  for (const field of FINGERPRINT_FIELDS) {
    const value = tool[field];
    fields[field] = value === undefined ? '-' : sha256(canonical(value)).slice(0, 16);
  }
  const whole: Record<string, unknown> = {};
  for (const field of FINGERPRINT_FIELDS) whole[field] = tool[field];
  const fingerprint = { hash: `sha256:${sha256(canonical(whole))}`, fields };
  cache.set(tool, fingerprint);
  return fingerprint;
}

/** The covered fields whose hashes differ between two fingerprints, in field order. */
export function changedFields(
  before: Pick<ToolFingerprint, 'fields'>,
  after: Pick<ToolFingerprint, 'fields'>,
): FingerprintField[] {
  return FINGERPRINT_FIELDS.filter((field) => (before.fields[field] ?? '-') !== (after.fields[field] ?? '-'));
}

/** True when `value` looks like a fingerprint hash (`sha256:` and 64 hex digits). */
export function isFingerprintHash(value: string): boolean {
  return /^sha256:[0-9a-f]{64}$/.test(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with every object's keys sorted; `undefined` members left out as JSON.stringify does. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (_key, member: unknown) => {
      if (typeof member !== 'object' || member === null || Array.isArray(member)) return member;
      const source = member as Record<string, unknown>;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(source).sort()) sorted[key] = source[key];
      return sorted;
    }) ?? 'null'
  );
}
