import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf, ROOT, relativeImports, resolveImport, SRC, sourceFiles } from './import-graph.js';

/**
 * docs/DESIGN.md §1: a folder imports only from folders below it. Layer-2 folders do not import each
 * other (they meet through ports in foundation/ or catalog/). app/ may use config/ (same layer).
 */
const RANK: Record<string, number> = {
  foundation: 0,
  catalog: 1,
  discovery: 2,
  execution: 2,
  sources: 2,
  operations: 2,
  composition: 3,
  surfaces: 4,
  config: 5,
  app: 5,
  cli: 6,
};
const SAME_LAYER_ALLOWED = new Set(['app->config']);

function layerOf(file: string): string | undefined {
  const rel = path.relative(SRC, file);
  const top = rel.split(path.sep)[0];
  return top && top in RANK ? top : undefined;
}

/** Relative import specifiers of a file (static, dynamic and re-exports). */
function importsOf(text: string): string[] {
  const found: string[] = [];
  const pattern = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const spec = match[1] ?? match[2];
    if (spec?.startsWith('.')) found.push(spec);
  }
  return found;
}

function layerViolations(files: readonly string[], read: (file: string) => string): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    if (!from) continue;
    for (const spec of importsOf(read(file))) {
      const target = path.resolve(path.dirname(file), spec);
      const to = layerOf(target);
      if (!to || to === from) continue;
      const fromRank = RANK[from] ?? 0;
      const toRank = RANK[to] ?? 0;
      const ok = toRank < fromRank || SAME_LAYER_ALLOWED.has(`${from}->${to}`);
      if (!ok) violations.push(`${path.relative(SRC, file)} (${from}) imports ${spec} (${to})`);
    }
  }
  return violations;
}

/** Each file's imports, resolved to files (imports of packages and of missing files left out). */
function importGraph(
  files: readonly string[],
  read: (file: string) => string,
  exists?: (file: string) => boolean,
): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = relativeImports(read(file)).flatMap(
      ({ spec }) => resolveImport(file, spec, exists) ?? [],
    );
    graph.set(file, targets);
  }
  return graph;
}

/** `a.ts -> b.ts`, both from src/: how the known exceptions below name an import. */
const edgeName = (from: string, to: string) => `${path.relative(SRC, from)} -> ${path.relative(SRC, to)}`;

/**
 * File-level import cycles tolerated for now, each as the import that closes the cycle. Type-only
 * imports count: a cycle of types is still two concepts that cannot be understood apart.
 */
const KNOWN_FILE_CYCLE_IMPORTS = new Set<string>([]);

/** Cycles among the files of `graph`, the imports named in `except` left out. */
function fileCycles(graph: ReadonlyMap<string, readonly string[]>, except: ReadonlySet<string>): string[][] {
  return cyclesOf(graph.keys(), (file) =>
    (graph.get(file) ?? []).filter((to) => graph.has(to) && !except.has(edgeName(file, to))),
  ).map((cycle) => cycle.map((file) => path.relative(SRC, file)));
}

/**
 * The folder of `file` just below the deepest folder it shares with `other`, for two files in two
 * different sub-folders of one folder below a layer folder's parent (`surfaces/http/x.ts` and
 * `surfaces/mcp/y.ts` give `surfaces/http` and `surfaces/mcp`); `undefined` when either file sits
 * directly in the shared folder or the shared folder is src/ itself (the layer rule covers that).
 */
function siblingFolders(file: string, other: string): [string, string] | undefined {
  const a = path.relative(SRC, file).split(path.sep);
  const b = path.relative(SRC, other).split(path.sep);
  let shared = 0;
  while (shared < a.length - 1 && shared < b.length - 1 && a[shared] === b[shared]) shared++;
  if (shared === 0 || shared >= a.length - 1 || shared >= b.length - 1) return undefined;
  return [a.slice(0, shared + 1).join('/'), b.slice(0, shared + 1).join('/')];
}

/**
 * Sub-folder dependencies tolerated for now, each as `from-folder -> to-folder` (from src/): the
 * direction that points up the folder's own order, left out so the rest is still checked.
 */
const KNOWN_FOLDER_CYCLE_IMPORTS = new Set([
  // http/ is the plumbing the protocol folders share (body reading, error bodies, the caller);
  // http-app.ts mounts the MCP endpoints and http-auth.ts knows the A2A card paths.
  'surfaces/http -> surfaces/mcp',
  'surfaces/http -> surfaces/a2a',
]);

/** Cycles among sibling sub-folders (any depth below a layer folder), `except` left out. */
function folderCycles(
  graph: ReadonlyMap<string, readonly string[]>,
  except: ReadonlySet<string>,
): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const pair = siblingFolders(file, target);
      if (!pair || except.has(`${pair[0]} -> ${pair[1]}`)) continue;
      const next = edges.get(pair[0]) ?? new Set<string>();
      next.add(pair[1]);
      edges.set(pair[0], next);
    }
  }
  return cyclesOf(edges.keys(), (folder) => edges.get(folder) ?? []);
}

/**
 * Imports from the package's code into test/. Test code in src/ is exempt: unit tests and the
 * shared contract suites (`*.contract.ts`, which run implementations under vitest).
 */
function importsIntoTests(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const testDir = path.join(ROOT, 'test') + path.sep;
  return [...graph]
    .filter(([file]) => !file.endsWith('.contract.ts'))
    .flatMap(([file, targets]) =>
      targets
        .filter((to) => to.startsWith(testDir))
        .map((to) => `${path.relative(ROOT, file)} imports ${path.relative(ROOT, to)}`),
    );
}

describe('layering', () => {
  it('every src folder is a known layer', () => {
    const tops = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(tops.filter((t) => !(t in RANK))).toEqual([]);
  });

  it('no file imports from a higher layer or a sibling layer-2 folder', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(10);
    expect(layerViolations(files, (f) => readFileSync(f, 'utf8'))).toEqual([]);
  });

  it('the check catches an upward import and a sibling import (it can fail)', () => {
    const fake: Record<string, string> = {
      [path.join(SRC, 'catalog/x.ts')]: "import { a } from '../surfaces/mcp/y.js';",
      [path.join(SRC, 'execution/z.ts')]: "import type { B } from '../discovery/b.js';",
      [path.join(SRC, 'surfaces/ok.ts')]: "import { c } from '../foundation/c.js';",
    };
    const violations = layerViolations(Object.keys(fake), (f) => fake[f] ?? '');
    expect(violations).toHaveLength(2);
    expect(violations[0]).toContain('catalog/x.ts (catalog) imports ../surfaces/mcp/y.js (surfaces)');
    expect(violations[1]).toContain('(execution) imports ../discovery/b.js (discovery)');
  });

  it('no file-level import cycles (beyond the known, commented exceptions)', () => {
    const graph = importGraph(sourceFiles(SRC), (f) => readFileSync(f, 'utf8'));
    expect(fileCycles(graph, KNOWN_FILE_CYCLE_IMPORTS)).toEqual([]);
  });

  it('no import cycles between sub-folders of one folder (beyond the known, commented exceptions)', () => {
    const graph = importGraph(sourceFiles(SRC), (f) => readFileSync(f, 'utf8'));
    expect(folderCycles(graph, KNOWN_FOLDER_CYCLE_IMPORTS)).toEqual([]);
  });

  it('no package code imports from test/', () => {
    const graph = importGraph(sourceFiles(SRC), (f) => readFileSync(f, 'utf8'));
    expect(importsIntoTests(graph)).toEqual([]);
  });

  it('the cycle and test-import checks catch what they are for (they can fail)', () => {
    const fake: Record<string, string> = {
      [path.join(SRC, 'foundation/a.ts')]: "import type { B } from './b.js';",
      [path.join(SRC, 'foundation/b.ts')]: "export { a } from './a.js';",
      [path.join(SRC, 'operations/cache/c.ts')]: "import { s } from '../state/s.js';",
      [path.join(SRC, 'operations/state/s.ts')]: "import { c } from '../cache/c.js';",
      [path.join(SRC, 'operations/state/d.ts')]: "import { t } from '../../../test/support/t.js';",
      [path.join(ROOT, 'test/support/t.ts')]: '',
    };
    const graph = importGraph(
      Object.keys(fake).filter((f) => f.startsWith(SRC)),
      (f) => fake[f] ?? '',
      (f) => f in fake,
    );
    expect(fileCycles(graph, new Set())).toEqual([
      ['foundation/a.ts', 'foundation/b.ts'],
      ['operations/cache/c.ts', 'operations/state/s.ts'],
    ]);
    expect(fileCycles(graph, new Set(['foundation/a.ts -> foundation/b.ts']))).toHaveLength(1);
    expect(folderCycles(graph, new Set())).toEqual([['operations/cache', 'operations/state']]);
    expect(folderCycles(graph, new Set(['operations/state -> operations/cache']))).toEqual([]);
    expect(importsIntoTests(graph)).toEqual(['src/operations/state/d.ts imports test/support/t.ts']);
  });
});
