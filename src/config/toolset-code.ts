import { isMap, isScalar, isSeq, parseDocument, stringify, type YAMLSeq } from 'yaml';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { isRecord } from '../foundation/util/is-record.js';
import { toolsetsSection } from './access-schema.js';

/*
 * Toolsets as code: a toolset written out as a file a team reviews and promotes (dev → prod), and
 * merged back into a config. The file is deterministic — keys in one order, lists sorted and
 * deduplicated — so the same toolset always exports to the same bytes and a diff shows only what
 * changed. It is taken from the config as written, so `${env:…}` / `${secret:…}` references stay
 * references: no resolved value can leak into it.
 */

/** The `kind` line of an exported toolset file. */
export const TOOLSET_FILE_KIND = 'aperture/toolset@1';

/** The keys of a toolset, in the order they are written. */
const KEYS = ['name', 'description', 'namespaces', 'tags', 'tools', 'exclude', 'annotations'] as const;
const LISTS = new Set(['namespaces', 'tags', 'tools', 'exclude']);

/** A toolset as a file holds it. */
export type ToolsetCode = Record<string, unknown> & { name: string };

/** The toolset `name` of a config object as written, normalised; throws `not_found`. */
export function toolsetFromConfig(raw: Record<string, unknown>, name: string): ToolsetCode {
  const list = Array.isArray(raw.toolsets) ? raw.toolsets : [];
  const found = list.find((entry) => isRecord(entry) && entry.name === name);
  if (!isRecord(found)) {
    const names = list.flatMap((entry) =>
      isRecord(entry) && typeof entry.name === 'string' ? [entry.name] : [],
    );
    throw new GatewayError(
      'not_found',
      `No toolset "${name}" in the config${names.length > 0 ? ` (it has ${names.map((n) => `"${n}"`).join(', ')})` : ''}`,
    );
  }
  return normaliseToolset(found);
}

/** Keys in order, lists sorted and deduplicated, empty parts left out; validated as the config would. */
export function normaliseToolset(given: Record<string, unknown>): ToolsetCode {
  const checked = toolsetsSection.safeParse([given]);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new GatewayError(
      'invalid_request',
      `not a valid toolset: ${issue ? `${issue.path.slice(1).join('.') || '(toolset)'}: ${issue.message}` : 'invalid'}`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const key of KEYS) {
    const value = given[key];
    if (value === undefined || value === null) continue;
    if (LISTS.has(key) && Array.isArray(value)) {
      const sorted = [...new Set(value.map(String))].sort();
      if (sorted.length > 0) out[key] = sorted;
    } else if (key === 'annotations' && isRecord(value)) {
      out[key] = Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((k) => [k, value[k]]),
      );
    } else {
      out[key] = value;
    }
  }
  return out as ToolsetCode;
}

/** The file text of a toolset: YAML (default) or JSON, with its kind. */
export function formatToolset(toolset: ToolsetCode, format: 'yaml' | 'json'): string {
  const document = { kind: TOOLSET_FILE_KIND, toolset };
  return format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { lineWidth: 0 });
}

/** Reads an exported toolset file (YAML or JSON). */
export function parseToolsetFile(text: string, source: string): ToolsetCode {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new GatewayError('invalid_request', `${source}: ${doc.errors[0]?.message}`);
  const raw: unknown = doc.toJSON();
  if (!isRecord(raw) || raw.kind !== TOOLSET_FILE_KIND || !isRecord(raw.toolset)) {
    throw new GatewayError(
      'invalid_request',
      `${source}: not a toolset file (expected "kind: ${TOOLSET_FILE_KIND}" and a "toolset" mapping, as \`aperture toolset export\` writes)`,
    );
  }
  return normaliseToolset(raw.toolset);
}

/** One line per difference, `+ tools: x`, `- tools: y`, `~ description: "a" → "b"`; empty when equal. */
export function diffToolsets(current: ToolsetCode | undefined, next: ToolsetCode): string[] {
  if (current === undefined) return [`+ toolset ${next.name} (new)`];
  const lines: string[] = [];
  for (const key of KEYS) {
    const before = current[key];
    const after = next[key];
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    if (LISTS.has(key)) {
      const was = new Set((before as string[] | undefined) ?? []);
      const now = new Set((after as string[] | undefined) ?? []);
      for (const item of now) if (!was.has(item)) lines.push(`+ ${key}: ${item}`);
      for (const item of was) if (!now.has(item)) lines.push(`- ${key}: ${item}`);
    } else {
      lines.push(`~ ${key}: ${JSON.stringify(before) ?? '(none)'} → ${JSON.stringify(after) ?? '(none)'}`);
    }
  }
  return lines;
}

/** The config text with `toolset` replacing the toolset of its name (or appended), comments kept. */
export function withToolset(text: string, file: string, toolset: ToolsetCode): string {
  if (file.toLowerCase().endsWith('.json')) {
    const root: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (!isRecord(root)) throw new GatewayError('config_invalid', `${file}: the top level is not an object`);
    const list = Array.isArray(root.toolsets) ? [...root.toolsets] : [];
    const at = list.findIndex((entry) => isRecord(entry) && entry.name === toolset.name);
    if (at === -1) list.push(toolset);
    else list[at] = toolset;
    return `${JSON.stringify({ ...root, toolsets: list }, null, 2)}\n`;
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new GatewayError('config_invalid', `${file}: ${doc.errors[0]?.message}`);
  let seq = doc.get('toolsets', true);
  if (!isSeq(seq)) {
    seq = doc.createNode([]) as YAMLSeq;
    doc.set('toolsets', seq);
  }
  const items = (seq as YAMLSeq).items;
  const at = items.findIndex(
    (item) => isMap(item) && isScalar(item.get('name', true)) && item.get('name') === toolset.name,
  );
  const node = doc.createNode(toolset);
  if (at === -1) (seq as YAMLSeq).add(node);
  else items[at] = node;
  return doc.toString();
}
