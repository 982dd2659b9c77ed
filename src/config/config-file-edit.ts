import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  isMap,
  isNode,
  isScalar,
  parseDocument,
  parse as parseYamlValue,
  Scalar,
  stringify,
  type YAMLMap,
} from 'yaml';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { isRecord } from '../foundation/util/is-record.js';
import { configFormatOf } from './config-syntax.js';

/*
 * Edits of the config file the gateway watches, made by commands (`aperture add`, `remove`,
 * `toolset import`). A YAML file is edited through the `yaml` package's Document API, so its
 * comments, key order and the style of untouched nodes stay as the user wrote them; a JSON file
 * (which has no comments) keeps its key order and is written with two-space indentation. The new
 * text is written to a sibling file and renamed over the old one: a watching gateway never reads
 * half a file.
 */

/** The two sections servers may be written in; `mcpServers` only when the file uses it alone. */
const SERVER_SECTIONS = ['servers', 'mcpServers'] as const;

/** The new text of `text` with `servers.<key>` = `entry`; throws when the key is taken. */
export function withServerEntry(
  text: string,
  file: string,
  key: string,
  entry: Record<string, unknown>,
  comment?: string,
): string {
  if (isJsonFile(file)) {
    const root = parseJsonRoot(text, file);
    ensureFree(key, SERVER_SECTIONS.map((section) => root[section]).filter(isRecord), file);
    const section = !isRecord(root.servers) && isRecord(root.mcpServers) ? 'mcpServers' : 'servers';
    const record = isRecord(root[section]) ? root[section] : {};
    root[section] = { ...record, [key]: entry };
    return `${JSON.stringify(root, null, 2)}\n`;
  }
  const doc = parseYaml(text, file);
  const maps = SERVER_SECTIONS.map((section) => doc.get(section, true)).filter((node) => isMap(node));
  ensureFree(
    key,
    maps.map((map) => map.toJSON() as Record<string, unknown>),
    file,
  );
  const section =
    !isMap(doc.get('servers', true)) && isMap(doc.get('mcpServers', true)) ? 'mcpServers' : 'servers';
  const spliced = splicedEntry(text, doc, section, key, entry, comment);
  if (spliced !== undefined && sameServers(spliced, section, doc, key, entry)) return spliced;
  // A layout the splice does not handle (a flow map `servers: {…}`): the Document API writes it,
  // which keeps comments and order but may restyle flow collections.
  let map = doc.get(section, true);
  if (!isMap(map)) {
    map = doc.createNode({}) as YAMLMap;
    doc.set(section, map);
  }
  const keyNode = new Scalar(key);
  if (comment !== undefined) keyNode.commentBefore = ` ${comment.replace(/\n/g, ' ')}`;
  (map as YAMLMap).add(doc.createPair(keyNode, entry));
  return doc.toString();
}

/**
 * The entry inserted as text after the section's last entry (or under its `servers:` line), so
 * every byte the user wrote stays where it was. Undefined when the section is a flow map.
 */
function splicedEntry(
  text: string,
  doc: ReturnType<typeof parseDocument>,
  section: string,
  key: string,
  entry: Record<string, unknown>,
  comment: string | undefined,
): string | undefined {
  const root = doc.contents;
  const pair = isMap(root)
    ? root.items.find((item) => isScalar(item.key) && item.key.value === section)
    : undefined;
  const value = pair?.value;
  const render = (indent: string) => {
    const body = stringify({ [key]: entry }, { lineWidth: 0 })
      .trimEnd()
      .split('\n');
    const lines = comment === undefined ? body : [`# ${comment.replace(/\n/g, ' ')}`, ...body];
    return lines.map((line) => `${indent}${line}`).join('\n');
  };
  const withNewline = text === '' || text.endsWith('\n') ? text : `${text}\n`;
  if (pair === undefined) return `${withNewline}${section}:\n${render('  ')}\n`;
  if (isMap(value) && value.items.length > 0 && !value.flow) {
    const first = value.items[0]?.key;
    const last = value.items.at(-1)?.value;
    const firstStart = isScalar(first) ? first.range?.[0] : undefined;
    const lastEnd = valueEndOf(last) ?? valueEndOf(value.items.at(-1)?.key);
    if (firstStart === undefined || lastEnd === undefined) return undefined;
    const indent = ' '.repeat(firstStart - text.lastIndexOf('\n', firstStart - 1) - 1);
    const at = lineEnd(text, Math.max(lastEnd - 1, 0));
    return `${text.slice(0, at)}\n${render(indent)}${text.slice(at)}${at === text.length ? '\n' : ''}`;
  }
  if (value === null || value === undefined || (isScalar(value) && value.value === null)) {
    // `servers:` with nothing under it (maybe comments): the entry goes right under the line.
    const keyStart = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    if (keyStart === undefined) return undefined;
    const lineStart = text.lastIndexOf('\n', keyStart - 1) + 1;
    const indent = ' '.repeat(keyStart - lineStart + 2);
    const at = lineEnd(text, keyStart);
    return `${text.slice(0, at)}\n${render(indent)}${text.slice(at)}${at === text.length ? '\n' : ''}`;
  }
  return undefined;
}

/** Where a node ends in the text (before any trailing comment). */
function valueEndOf(node: unknown): number | undefined {
  return isNode(node) ? node.range?.[1] : undefined;
}

/** The offset of the newline ending the line `offset` is on (or the text's end). */
function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline;
}

/** Whether `next` parses to the old document's section plus exactly `key: entry`. */
function sameServers(
  next: string,
  section: string,
  doc: ReturnType<typeof parseDocument>,
  key: string,
  entry: Record<string, unknown> | undefined,
): boolean {
  const parsed = parseDocument(next);
  if (parsed.errors.length > 0) return false;
  const before = (doc.toJSON() ?? {}) as Record<string, unknown>;
  const after = (parsed.toJSON() ?? {}) as Record<string, unknown>;
  const expected = { ...(isRecord(before[section]) ? before[section] : {}) };
  if (entry === undefined) delete expected[key];
  else expected[key] = entry;
  const rest = (record: Record<string, unknown>) => JSON.stringify({ ...record, [section]: undefined });
  return JSON.stringify(after[section] ?? {}) === JSON.stringify(expected) && rest(before) === rest(after);
}

/** The new text of `text` without `servers.<key>` (or `mcpServers.<key>`); throws `not_found`. */
export function withoutServerEntry(text: string, file: string, key: string): string {
  if (isJsonFile(file)) {
    const root = parseJsonRoot(text, file);
    const section = SERVER_SECTIONS.find((name) => isRecord(root[name]) && Object.hasOwn(root[name], key));
    if (section === undefined) throw missing(key, file);
    const { [key]: _removed, ...rest } = root[section] as Record<string, unknown>;
    root[section] = rest;
    return `${JSON.stringify(root, null, 2)}\n`;
  }
  const doc = parseYaml(text, file);
  const section = SERVER_SECTIONS.find((name) => {
    const map = doc.get(name, true);
    return isMap(map) && map.has(key);
  });
  if (section === undefined) throw missing(key, file);
  const map = doc.get(section, true) as YAMLMap;
  const pair = map.items.find((item) => isScalar(item.key) && item.key.value === key);
  const keyStart = pair && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
  const valueEnd = valueEndOf(pair?.value) ?? valueEndOf(pair?.key);
  if (!map.flow && keyStart !== undefined && valueEnd !== undefined) {
    // Cut the entry's lines (and the comment `aperture add` wrote above it) out of the text.
    let start = text.lastIndexOf('\n', keyStart - 1) + 1;
    const above = text.lastIndexOf('\n', start - 2) + 1;
    if (start > 0 && /^\s*# added by aperture add:/.test(text.slice(above, start))) start = above;
    const end = Math.min(lineEnd(text, Math.max(valueEnd - 1, keyStart)) + 1, text.length);
    const next = text.slice(0, start) + text.slice(end);
    if (sameServers(next, section, doc, key, undefined)) return next;
  }
  map.delete(key);
  return doc.toString();
}

/** The server entry `key` as written in the file (uninterpolated), or undefined. */
export function serverEntryOf(text: string, file: string, key: string): Record<string, unknown> | undefined {
  const root = isJsonFile(file) ? parseJsonRoot(text, file) : (parseYaml(text, file).toJSON() as unknown);
  if (!isRecord(root)) return undefined;
  for (const section of SERVER_SECTIONS) {
    const record = root[section];
    if (isRecord(record) && isRecord(record[key])) return record[key];
  }
  return undefined;
}

/** Reads the config file as text; a missing file reads as empty (it is created). */
export async function readConfigText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return isJsonFile(file) ? '{}\n' : '';
    throw error;
  }
}

/** Replaces the file's content at once (a sibling temporary file renamed over it). */
export async function writeConfigText(file: string, text: string): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    await writeFile(temporary, text, { mode: 0o600, flag: 'wx' });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

function isJsonFile(file: string): boolean {
  return path.extname(file).toLowerCase() === '.json';
}

function parseJsonRoot(text: string, file: string): Record<string, unknown> {
  let root: unknown;
  try {
    root = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new GatewayError(
      'config_invalid',
      `${file}: not valid JSON (${(error as Error).message}); nothing was written`,
    );
  }
  if (!isRecord(root)) throw new GatewayError('config_invalid', `${file}: the top level is not an object`);
  return root;
}

function parseYaml(text: string, file: string) {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new GatewayError(
      'config_invalid',
      `${file}: not valid YAML (${doc.errors[0]?.message ?? 'syntax error'}); nothing was written`,
    );
  }
  const contents = doc.contents;
  if (contents !== null && !isMap(contents) && !(isScalar(contents) && contents.value === null)) {
    throw new GatewayError('config_invalid', `${file}: the top level is not a mapping; nothing was written`);
  }
  return doc;
}

function ensureFree(key: string, sections: Record<string, unknown>[], file: string): void {
  if (sections.some((section) => Object.hasOwn(section, key))) {
    throw new GatewayError(
      'invalid_request',
      `${file} already has a server "${key}"; choose another key with --as KEY, or \`aperture remove ${key}\` first (nothing was written)`,
    );
  }
}

function missing(key: string, file: string): GatewayError {
  return new GatewayError('not_found', `${file} has no server "${key}"; nothing was removed`);
}

/** The config file's text and its top-level object as written (no interpolation, no defaults). */
export async function readRawConfig(file: string): Promise<{ text: string; raw: Record<string, unknown> }> {
  const text = await readConfigText(file);
  let raw: unknown;
  try {
    raw = text.trim() === '' ? {} : configFormatOf(file) === 'json' ? JSON.parse(text) : parseYamlValue(text);
  } catch (error) {
    throw new GatewayError('config_invalid', `${file}: ${(error as Error).message}`);
  }
  return { text, raw: isRecord(raw) ? raw : {} };
}
