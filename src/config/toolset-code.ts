import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  stringify,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { globMatcher } from '../foundation/schema/glob-matcher.js';
import { isRecord } from '../foundation/util/is-record.js';
import { toolsetsSection } from './access-schema.js';
import { overridesSection } from './overrides-schema.js';
import { skillsSection } from './skills-schema.js';

/*
 * Toolsets as code: a toolset written out as a file a team reviews and promotes (dev → prod), and
 * merged back into a config, with what goes with it — the overrides that apply to its members, the
 * pinned tools among them and the skills that belong to it (see `toolsetFromConfig` for the rule). The file is deterministic — keys in one order, lists sorted and
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

/**
 * A toolset with what goes with it: `overrides` (rules by key, keys sorted), `pinned` (entries of
 * `exposure.pinned`, sorted) and `skills` (definitions, sorted by name), each as written.
 */
export interface ToolsetBundle {
  toolset: ToolsetCode;
  overrides: Record<string, unknown>;
  pinned: string[];
  skills: Record<string, unknown>[];
}

/**
 * The toolset `name` of a config object as written, normalised, with what goes with it; throws
 * `not_found`. Which parts go with it is decided from the config alone (no gateway is asked which
 * tools exist), by the toolset's selectors by id: a tool id or glob is *covered* when no `exclude`
 * glob matches it and its namespace is one of `namespaces` or a `tools` glob matches it (a glob
 * entry counts as the text it is; `tags` cannot be judged without the tools, so they select
 * nothing here). Then an override applies when its key is a covered `namespace:tool[:version]` or
 * one of `namespaces` (the gateway-wide `*` belongs to no toolset); a pin goes with it when it is
 * covered; a skill belongs to it when its tool `skill:<name>` is covered or every one of its steps
 * calls a covered tool. Overrides kept in files beside the config are not part of the file.
 */
export function toolsetFromConfig(raw: Record<string, unknown>, name: string): ToolsetBundle {
  const toolset = toolsetOnlyFromConfig(raw, name);
  const covered = coverage(toolset);
  const overrides: Record<string, unknown> = {};
  for (const [key, rule] of overrideEntries(raw.overrides)) {
    if (key === '*') continue;
    const [namespace, tool] = key.split(':');
    const applies =
      tool === undefined
        ? ((toolset.namespaces as string[] | undefined) ?? []).includes(key)
        : covered(`${namespace}:${tool}`);
    // A key in more than one list entry: later entries merge over earlier ones, as the config does.
    if (applies)
      overrides[key] = isRecord(overrides[key]) && isRecord(rule) ? { ...overrides[key], ...rule } : rule;
  }
  const exposure = raw.exposure;
  const pins = isRecord(exposure) && Array.isArray(exposure.pinned) ? exposure.pinned : [];
  const pinned = [...new Set(pins.filter((pin): pin is string => typeof pin === 'string' && covered(pin)))];
  const skills = (Array.isArray(raw.skills) ? raw.skills : []).filter(
    (skill): skill is Record<string, unknown> =>
      isRecord(skill) &&
      typeof skill.name === 'string' &&
      (covered(`skill:${skill.name}`) ||
        (Array.isArray(skill.steps) &&
          skill.steps.length > 0 &&
          skill.steps.every(
            (step) => isRecord(step) && typeof step.tool === 'string' && covered(step.tool),
          ))),
  );
  return normaliseBundle({ toolset, overrides, pinned, skills });
}

/** The rules of the `overrides` section as written, in order (mapping form, or the mappings of the list form). */
function overrideEntries(section: unknown): [string, unknown][] {
  const parts = Array.isArray(section) ? section : [section];
  return parts.flatMap((part) => (isRecord(part) ? Object.entries(part) : []));
}

/** Whether a tool id or glob is selected by the toolset's namespaces and tool globs, and not excluded. */
function coverage(toolset: ToolsetCode): (id: string) => boolean {
  const namespaces = new Set((toolset.namespaces as string[] | undefined) ?? []);
  const tools = ((toolset.tools as string[] | undefined) ?? []).map(globMatcher);
  const exclude = ((toolset.exclude as string[] | undefined) ?? []).map(globMatcher);
  return (id) => {
    if (exclude.some((matches) => matches(id))) return false;
    const namespace = id.split(':')[0] ?? '';
    return (!namespace.includes('*') && namespaces.has(namespace)) || tools.some((matches) => matches(id));
  };
}

/** The bundle in its one written order, each part checked as the config checks it; throws `invalid_request`. */
export function normaliseBundle(given: {
  toolset: Record<string, unknown>;
  overrides?: unknown;
  pinned?: unknown;
  skills?: unknown;
}): ToolsetBundle {
  const toolset = normaliseToolset(given.toolset);
  const overrides = given.overrides ?? {};
  const checkedOverrides = overridesSection.safeParse(overrides);
  if (!isRecord(overrides) || !checkedOverrides.success) {
    throw new GatewayError('invalid_request', `not valid overrides: ${issueText(checkedOverrides.error)}`);
  }
  const pinned = given.pinned ?? [];
  if (!Array.isArray(pinned) || !pinned.every((pin) => typeof pin === 'string' && pin !== '')) {
    throw new GatewayError('invalid_request', 'not valid pinned tools: expected a list of tool ids or globs');
  }
  const skills = given.skills ?? [];
  const checkedSkills = skillsSection.safeParse(skills);
  if (!Array.isArray(skills) || !checkedSkills.success || !skills.every(isRecord)) {
    throw new GatewayError('invalid_request', `not valid skills: ${issueText(checkedSkills.error)}`);
  }
  return {
    toolset,
    overrides: Object.fromEntries(
      Object.keys(overrides)
        .sort()
        .map((key) => [key, overrides[key]]),
    ),
    pinned: [...new Set(pinned as string[])].sort(),
    skills: [...skills].sort((a, b) => String(a.name).localeCompare(String(b.name))),
  };
}

function issueText(error: { issues: { path: PropertyKey[]; message: string }[] } | undefined): string {
  const issue = error?.issues[0];
  return issue
    ? `${issue.path.map(String).join('.') || '(top)'}: ${issue.message}`
    : 'not the expected shape';
}

/** The toolset `name` alone, normalised; throws `not_found`. */
function toolsetOnlyFromConfig(raw: Record<string, unknown>, name: string): ToolsetCode {
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

/** The file text of a toolset: YAML (default) or JSON, with its kind; empty parts left out. */
export function formatToolset(bundle: ToolsetBundle, format: 'yaml' | 'json'): string {
  const document: Record<string, unknown> = { kind: TOOLSET_FILE_KIND, toolset: bundle.toolset };
  if (Object.keys(bundle.overrides).length > 0) document.overrides = bundle.overrides;
  if (bundle.pinned.length > 0) document.pinned = bundle.pinned;
  if (bundle.skills.length > 0) document.skills = bundle.skills;
  return format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { lineWidth: 0 });
}

/** Reads an exported toolset file (YAML or JSON). */
export function parseToolsetFile(text: string, source: string): ToolsetBundle {
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
  return normaliseBundle({
    toolset: raw.toolset,
    overrides: raw.overrides,
    pinned: raw.pinned,
    skills: raw.skills,
  });
}

/**
 * What a config holds now of what an import writes: the toolset of that name (if any), and all of
 * its overrides, pins and skills (an import compares each part of the file with these by key).
 */
export interface ConfigParts {
  toolset: ToolsetCode | undefined;
  overrides: Record<string, unknown>;
  pinned: string[];
  skills: Record<string, unknown>[];
}

/** The parts of a config object as written that `diffToolsets` compares a file with. */
export function configPartsOf(raw: Record<string, unknown>, name: string): ConfigParts {
  let toolset: ToolsetCode | undefined;
  try {
    toolset = toolsetOnlyFromConfig(raw, name);
  } catch {
    toolset = undefined;
  }
  const overrides: Record<string, unknown> = {};
  for (const [key, rule] of overrideEntries(raw.overrides)) {
    overrides[key] = isRecord(overrides[key]) && isRecord(rule) ? { ...overrides[key], ...rule } : rule;
  }
  const exposure = raw.exposure;
  const pins = isRecord(exposure) && Array.isArray(exposure.pinned) ? exposure.pinned : [];
  return {
    toolset,
    overrides,
    pinned: pins.filter((pin): pin is string => typeof pin === 'string'),
    skills: (Array.isArray(raw.skills) ? raw.skills : []).filter(isRecord),
  };
}

/**
 * One line per difference, `+ tools: x`, `- tools: y`, `~ description: "a" → "b"`, and for what
 * goes with the toolset `+ override: k`, `~ override: k`, `+ pinned: p`, `+ skill: s`, `~ skill: s`
 * (an import adds and replaces these; it removes none from the config, so a part missing from the
 * file is not shown as removed). Empty when the import changes nothing.
 */
export function diffToolsets(current: ConfigParts, next: ToolsetBundle): string[] {
  const lines: string[] =
    current.toolset === undefined
      ? [`+ toolset ${next.toolset.name} (new)`]
      : diffMembers(current.toolset, next.toolset);
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  for (const [key, rule] of Object.entries(next.overrides)) {
    const before = current.overrides[key];
    if (before === undefined) lines.push(`+ override: ${key}`);
    else if (!same(before, rule)) lines.push(`~ override: ${key}`);
  }
  for (const pin of next.pinned) if (!current.pinned.includes(pin)) lines.push(`+ pinned: ${pin}`);
  for (const skill of next.skills) {
    const before = current.skills.find((s) => s.name === skill.name);
    if (before === undefined) lines.push(`+ skill: ${String(skill.name)}`);
    else if (!same(before, skill)) lines.push(`~ skill: ${String(skill.name)}`);
  }
  return lines;
}

function diffMembers(current: ToolsetCode, next: ToolsetCode): string[] {
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

/**
 * The config text with the bundle merged in, comments kept: the toolset replaces the toolset of its
 * name (or is appended); each override replaces the rule of its key (in a list-form `overrides`,
 * the key leaves every mapping and goes in the last one); pins are added to `exposure.pinned` (the
 * short form `exposure: flat` becomes `{ mode: flat, pinned }`); each skill replaces the skill of
 * its name (or is appended).
 */
export function withToolset(text: string, file: string, bundle: ToolsetBundle): string {
  const { toolset, overrides, pinned, skills } = bundle;
  if (file.toLowerCase().endsWith('.json')) {
    const root: unknown = text.trim() === '' ? {} : JSON.parse(text);
    if (!isRecord(root)) throw new GatewayError('config_invalid', `${file}: the top level is not an object`);
    const next: Record<string, unknown> = { ...root, toolsets: replacedByName(root.toolsets, toolset) };
    if (Object.keys(overrides).length > 0) next.overrides = withOverridesValue(root.overrides, overrides);
    if (pinned.length > 0) {
      const exposure =
        typeof root.exposure === 'string'
          ? { mode: root.exposure }
          : isRecord(root.exposure)
            ? root.exposure
            : {};
      const was = Array.isArray(exposure.pinned) ? exposure.pinned : [];
      next.exposure = { ...exposure, pinned: [...was, ...pinned.filter((pin) => !was.includes(pin))] };
    }
    let list: unknown = root.skills;
    for (const skill of skills) list = replacedByName(list, skill);
    if (skills.length > 0) next.skills = list;
    return `${JSON.stringify(next, null, 2)}\n`;
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new GatewayError('config_invalid', `${file}: ${doc.errors[0]?.message}`);
  setByName(doc, 'toolsets', toolset);
  for (const skill of skills) setByName(doc, 'skills', skill);
  if (Object.keys(overrides).length > 0) {
    const section = doc.get('overrides', true);
    if (isSeq(section)) {
      for (const item of section.items)
        if (isMap(item)) for (const key of Object.keys(overrides)) item.delete(key);
      const last = section.items.at(-1);
      const target = isMap(last) ? last : (doc.createNode({}) as YAMLMap);
      if (target !== last) section.add(target);
      for (const [key, rule] of Object.entries(overrides)) target.set(key, doc.createNode(rule));
    } else if (isMap(section)) {
      for (const [key, rule] of Object.entries(overrides)) section.set(key, doc.createNode(rule));
    } else {
      doc.set('overrides', doc.createNode(overrides));
    }
  }
  if (pinned.length > 0) {
    let exposure = doc.get('exposure', true);
    if (!isMap(exposure)) {
      const mode = isScalar(exposure) ? exposure.value : undefined;
      exposure = doc.createNode(typeof mode === 'string' ? { mode } : {}) as YAMLMap;
      doc.set('exposure', exposure);
    }
    const map = exposure as YAMLMap;
    const pins: unknown = map.get('pinned', true);
    let seq: YAMLSeq;
    if (isSeq(pins)) seq = pins;
    else {
      seq = doc.createNode([]) as YAMLSeq;
      map.set('pinned', seq);
    }
    const was = new Set(seq.items.map((item) => (isScalar(item) ? item.value : item)));
    for (const pin of pinned) if (!was.has(pin)) seq.add(doc.createNode(pin));
  }
  return doc.toString();
}

/** A list with `entry` in place of the entry of its name, or appended. */
function replacedByName(list: unknown, entry: Record<string, unknown>): unknown[] {
  const items = Array.isArray(list) ? [...list] : [];
  const at = items.findIndex((item) => isRecord(item) && item.name === entry.name);
  if (at === -1) items.push(entry);
  else items[at] = entry;
  return items;
}

/** `overrides` (mapping or list form, as JSON) with these rules in place. */
function withOverridesValue(section: unknown, rules: Record<string, unknown>): unknown {
  if (!Array.isArray(section)) return { ...(isRecord(section) ? section : {}), ...rules };
  const items = section.map((item) =>
    isRecord(item) ? Object.fromEntries(Object.entries(item).filter(([key]) => !(key in rules))) : item,
  );
  const last = items.at(-1);
  if (isRecord(last)) items[items.length - 1] = { ...last, ...rules };
  else items.push(rules);
  return items;
}

/** In the YAML document, `entry` replaces the item of its name in the list `key` (or is appended). */
function setByName(doc: Document, key: string, entry: Record<string, unknown>): void {
  let seq = doc.get(key, true);
  if (!isSeq(seq)) {
    seq = doc.createNode([]) as YAMLSeq;
    doc.set(key, seq);
  }
  const items = (seq as YAMLSeq).items;
  const at = items.findIndex(
    (item) => isMap(item) && isScalar(item.get('name', true)) && item.get('name') === entry.name,
  );
  const node = doc.createNode(entry);
  if (at === -1) (seq as YAMLSeq).add(node);
  else items[at] = node;
}
