import { RE2JS } from 're2js';

/**
 * A compiled pattern that matches in time linear in its input: RE2's automaton instead of the
 * backtracking `RegExp`, whose worst case is exponential (`^(a+)+$` against 30 `a`s and a `!`
 * blocks the event loop for a minute). Shaped like the part of `RegExp` ajv and matchers use.
 */
export interface BoundedRegExp {
  /** Whether the pattern occurs in `text` (search semantics, like `RegExp.prototype.test`). */
  test(text: string): boolean;
  /** `/source/flags`: ajv keys its compiled patterns on it. */
  toString(): string;
}

/** Thrown for a pattern the linear-time engine cannot run (backreferences, lookaround, …). */
export class UnsupportedPatternError extends Error {
  override readonly name = 'UnsupportedPatternError';
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`pattern ${JSON.stringify(pattern)} is not supported (${reason}); only linear-time patterns run`);
  }
}

// Patterns repeat across tools (`^[a-z0-9-]+$`) and across reloads; compiling costs more than matching.
const cache = new Map<string, BoundedRegExp>();
const CACHE_LIMIT = 2000;

/**
 * Compiles an ECMAScript `pattern` (JSON Schema's dialect) for the linear-time engine. JS-only
 * escapes (`\uXXXX`, `\u{…}`, `\cX`, `(?<name>…)`) are translated; what RE2 cannot express
 * in linear time (backreferences, lookahead, lookbehind) throws {@link UnsupportedPatternError}.
 * `flags` honours `i`, `m` and `s`; `u` and `g` change nothing here (RE2 is Unicode-aware and
 * stateless). Known differences from `RegExp`: `\s` and `.` treat only ASCII white space and `\n`
 * as special, as RE2 does.
 */
export function boundedRegExp(pattern: string, flags = ''): BoundedRegExp {
  const key = `${flags}/${pattern}`;
  const cached = cache.get(key);
  if (cached) return cached;
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern), engineFlags(flags));
  } catch (error) {
    throw new UnsupportedPatternError(pattern, (error as Error).message);
  }
  const compiled: BoundedRegExp = {
    test: (text) => re.test(text),
    toString: () => `/${pattern}/${flags}`,
  };
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, compiled);
  return compiled;
}

function engineFlags(flags: string): number {
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  return bits;
}

/** Why the linear-time engine refuses `pattern`, or undefined when it runs it. */
export function patternProblem(pattern: string): string | undefined {
  try {
    boundedRegExp(pattern);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * ajv's `code.regExp` engine: every `pattern` and `patternProperties` key is compiled here.
 * ajv passes `u` (its `unicodeRegExp` default), which the engine needs no flag for.
 */
export const ajvRegExpEngine = Object.assign((pattern: string, _flags: string) => boundedRegExp(pattern), {
  // Only read when ajv writes standalone code, which the gateway never does.
  code: 'boundedRegExp',
});

// Keywords whose values are data, not schemas: a `pattern` inside them is no constraint.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);
// Keywords whose values map names to schemas: a property called `default` is still a schema.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/**
 * The first `pattern` or `patternProperties` key of `schema` (at any depth) the linear-time engine
 * refuses, as `"<JSON pointer>: <reason>"`; undefined when every pattern runs. A cheap walk, so
 * a tool can be refused when it arrives rather than on its first call.
 */
export function schemaPatternProblem(schema: unknown, path = ''): string | undefined {
  if (Array.isArray(schema)) {
    for (const [i, item] of schema.entries()) {
      const problem = schemaPatternProblem(item, `${path}/${i}`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (typeof schema !== 'object' || schema === null) return undefined;
  const record = schema as Record<string, unknown>;
  if (typeof record.pattern === 'string') {
    const problem = patternProblem(record.pattern);
    if (problem) return `${path}/pattern: ${problem}`;
  }
  const patternProperties = record.patternProperties;
  if (typeof patternProperties === 'object' && patternProperties !== null) {
    for (const key of Object.keys(patternProperties)) {
      const problem = patternProblem(key);
      if (problem) return `${path}/patternProperties: ${problem}`;
    }
  }
  for (const [key, value] of Object.entries(record)) {
    if (DATA_KEYWORDS.has(key) || typeof value !== 'object' || value === null) continue;
    const children = SCHEMA_MAPS.has(key) && !Array.isArray(value) ? Object.entries(value) : [['', value]];
    for (const [name, child] of children) {
      const problem = schemaPatternProblem(child, name ? `${path}/${key}/${name}` : `${path}/${key}`);
      if (problem) return problem;
    }
  }
  return undefined;
}
