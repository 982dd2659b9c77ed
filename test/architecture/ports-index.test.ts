/**
 * `src/foundation/PORTS.md` is the index of the ports, their implementations and their contract
 * suites. It is only worth reading while it is true: every contract suite in src/ is listed in it
 * (a new port's suite cannot be left out), and every path it names exists (a moved or deleted file
 * cannot leave it pointing nowhere).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, SRC } from './import-graph.js';

const INDEX = path.join(SRC, 'foundation', 'PORTS.md');

/** Every `*.contract.ts` under `dir`, as a path from the repository root. */
function contractSuites(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return contractSuites(full);
    return entry.name.endsWith('.contract.ts') ? [path.relative(ROOT, full).split(path.sep).join('/')] : [];
  });
}

/** The backticked repository paths of a Markdown text (`src/…`, `test/…`). */
function namedPaths(markdown: string): string[] {
  return [...markdown.matchAll(/`((?:src|test)\/[^`\s]+)`/g)].map((match) => match[1]!);
}

/** The contract suites `markdown` does not name. */
function unlistedSuites(suites: readonly string[], markdown: string): string[] {
  const named = new Set(namedPaths(markdown));
  return suites.filter((suite) => !named.has(suite));
}

describe('the ports index (src/foundation/PORTS.md)', () => {
  const markdown = readFileSync(INDEX, 'utf8');

  it('lists every contract suite in src/', () => {
    const suites = contractSuites(SRC);
    expect(suites.length).toBeGreaterThan(5);
    expect(unlistedSuites(suites, markdown)).toEqual([]);
  });

  it('names only paths that exist', () => {
    const named = namedPaths(markdown);
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((file) => !existsSync(path.join(ROOT, file)))).toEqual([]);
  });

  it('reads backticked paths and reports a suite left out (it can fail)', () => {
    const text = 'a `src/a/x.contract.ts` row, `src/b/y.ts` and `npm test`';
    expect(namedPaths(text)).toEqual(['src/a/x.contract.ts', 'src/b/y.ts']);
    expect(unlistedSuites(['src/a/x.contract.ts', 'src/c/z.contract.ts'], text)).toEqual([
      'src/c/z.contract.ts',
    ]);
  });
});
