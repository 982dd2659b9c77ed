import picomatch from 'picomatch';
import { normalizeTags } from '../../foundation/model/tags.js';
import type { Tool, ToolAnnotations } from '../../foundation/model/tool.js';
import { boundedRegExp } from '../../foundation/schema/bounded-regexp.js';
import type { BehaviourHint, ToolsetDefinition } from './toolset-definition.js';

/**
 * `/` may occur in tool names (`github:repos/list`), but picomatch treats it as a path separator
 * that `*` does not cross. Ids are not paths: both sides swap it for a character no id contains.
 */
const SLASH_STAND_IN = '\u0001';
const SEGMENT_GUARD = '(?!\\.{1,2}(?:\\/|$))';
const NOT_EMPTY = '(?=.)';

/** Compiles ids and globs into one matcher; `undefined` for an empty list. */
export function idMatcher(patterns: readonly string[] | undefined): ((id: string) => boolean) | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  // dot: `*` also matches names starting with "."; ids are case-sensitive.
  const matchers = patterns.map((p) => globTest(p.replaceAll('/', SLASH_STAND_IN), { dot: true }));
  return (id) => {
    const subject = id.replaceAll('/', SLASH_STAND_IN);
    return matchers.some((test) => test(subject));
  };
}

/**
 * picomatch's regular expression for `glob`, run on the linear-time engine: picomatch's own
 * backtracking RegExp takes seconds for `*a*a*a*a*a*a*a*a*b` against a 40-character id.
 * picomatch guards each path segment with lookaheads (not empty, not `.` or `..`); an id has one
 * segment (`/` is swapped out) and is never empty, `.` or `..`, so the guards are dropped. A glob
 * whose translation still needs lookaround (a negated extglob `!(…)`) keeps picomatch's matcher.
 */
function globTest(glob: string, options: picomatch.PicomatchOptions): (subject: string) => boolean {
  const regex = picomatch.makeRe(glob, options);
  const source = regex.source.replaceAll(SEGMENT_GUARD, '').replaceAll(NOT_EMPTY, '');
  try {
    const bounded = boundedRegExp(source, regex.flags);
    return (subject) => subject === glob || bounded.test(subject);
  } catch {
    return picomatch(glob, options);
  }
}

/**
 * A hint's effective value: what the tool declares, else the MCP default. A read-only tool is
 * neither destructive nor non-idempotent, whatever it declares (MCP: those hints are meaningful
 * only when `readOnlyHint` is false).
 */
export function effectiveHint(annotations: ToolAnnotations, hint: BehaviourHint): boolean {
  const readOnly = annotations.readOnlyHint === true;
  switch (hint) {
    case 'readOnlyHint':
      return readOnly;
    case 'destructiveHint':
      return readOnly ? false : (annotations.destructiveHint ?? true);
    case 'idempotentHint':
      return readOnly ? true : (annotations.idempotentHint ?? false);
    case 'openWorldHint':
      return annotations.openWorldHint ?? true;
  }
}

/**
 * The membership test of a toolset, compiled once (globs, tag normalisation) and evaluated
 * against live tools, so membership follows catalog changes. Every condition the definition gives
 * must hold (namespace in `namespaces`; at least one of `tags`; id matching one of `tools`; id
 * matching none of `exclude`; every required annotation); a definition without conditions admits
 * every tool.
 */
export function toolsetPredicate(definition: ToolsetDefinition): (tool: Tool) => boolean {
  const checks: ((tool: Tool) => boolean)[] = [];
  if (definition.namespaces && definition.namespaces.length > 0) {
    const namespaces = new Set(definition.namespaces);
    checks.push((tool) => namespaces.has(tool.namespace));
  }
  const tags = normalizeTags(definition.tags);
  if (tags.length > 0) checks.push((tool) => tool.tags.some((tag) => tags.includes(tag)));
  const included = idMatcher(definition.tools);
  if (included) checks.push((tool) => included(tool.id));
  const excluded = idMatcher(definition.exclude);
  if (excluded) checks.push((tool) => !excluded(tool.id));
  const required = Object.entries(definition.annotations ?? {}).filter(
    (entry): entry is [BehaviourHint, boolean] => typeof entry[1] === 'boolean',
  );
  if (required.length > 0) {
    checks.push((tool) => required.every(([hint, value]) => effectiveHint(tool.annotations, hint) === value));
  }
  return (tool) => checks.every((check) => check(tool));
}
