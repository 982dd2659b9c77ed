import { type BoundedRegExp, boundedRegExp } from '../../foundation/schema/bounded-regexp.js';
import type { OperationInfo } from './openapi-document.js';
import { operationToolName } from './operation-to-tool.js';

/**
 * The `include` / `exclude` settings of an OpenAPI source. A pattern matches an operation's
 * operationId, its tool name before de-duplication (`get_pets_petId` when there is no
 * operationId) — both case-sensitive — or its `METHOD /path` (method case-insensitive, e.g.
 * `get /pets/{petId}`, `DELETE /admin/*`, `* /internal/*`); `*` matches any run of characters.
 * An operation is kept when it matches some include pattern (or there are none) and no exclude
 * pattern.
 */
export class OperationFilter {
  private readonly include: Matcher[];
  private readonly exclude: Matcher[];
  private readonly used = new Set<string>();

  constructor(include: readonly string[] = [], exclude: readonly string[] = []) {
    this.include = include.map(compile);
    this.exclude = exclude.map(compile);
  }

  /** True when `info` becomes a tool. */
  accepts(info: Pick<OperationInfo, 'method' | 'path' | 'operation'>): boolean {
    const candidates = [`${info.method.toUpperCase()} ${info.path}`, operationToolName(info)];
    if (info.operation.operationId) candidates.push(info.operation.operationId);
    const included = this.include.length === 0 || this.firstMatch(this.include, candidates);
    return included && !this.firstMatch(this.exclude, candidates);
  }

  /** Include patterns that matched no operation so far (likely typos, worth a warning). */
  unusedIncludes(): string[] {
    return this.include.filter((m) => !this.used.has(m.pattern)).map((m) => m.pattern);
  }

  private firstMatch(matchers: readonly Matcher[], candidates: readonly string[]): boolean {
    const hit = matchers.find((m) => candidates.some((c) => m.regex.test(c)));
    if (hit) this.used.add(hit.pattern);
    return hit !== undefined;
  }
}

interface Matcher {
  pattern: string;
  regex: BoundedRegExp;
}

function compile(pattern: string): Matcher {
  const trimmed = pattern.trim();
  // `get  /pets` and `GET /pets` mean the same operation.
  const route = /^([A-Za-z*]+)\s+(\/.*)$/.exec(trimmed);
  const text = route ? `${route[1]?.toUpperCase()} ${route[2]}` : trimmed;
  const source = text
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  // Linear time: many `*`s on a backtracking RegExp cost polynomially many steps per operation.
  return { pattern, regex: boundedRegExp(`^${source}$`) };
}
