/**
 * The import graph of `src/`, as the architecture tests read it: which source files a file imports
 * (relative specifiers only; packages are outside the graph), and the cycles of a graph. A plain
 * text scan rather than the compiler: the tests stay fast and see exactly what a reviewer sees.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The repository root. */
export const ROOT = path.resolve(import.meta.dirname, '../..');
/** The package's sources. */
export const SRC = path.join(ROOT, 'src');

/** Every non-test `.ts` file under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** One relative import of a file. */
export interface ImportEdge {
  /** The specifier as written (`../foundation/model/tool.js`). */
  spec: string;
  /** `import type` / `export type`: erased at build time, but still a dependency of the design. */
  typeOnly: boolean;
}

/**
 * Relative imports of a file's text: static imports and re-exports (`… from '…'`), side-effect
 * imports (`import '…'`) and dynamic imports (`import('…')`).
 */
export function relativeImports(text: string): ImportEdge[] {
  const found: ImportEdge[] = [];
  const pattern =
    /(import|export)(\s+type)?\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of text.matchAll(pattern)) {
    const spec = match[3] ?? match[4] ?? match[5];
    if (spec?.startsWith('.')) found.push({ spec, typeOnly: match[2] !== undefined });
  }
  return found;
}

/**
 * The file an import specifier names, from the importing file: `./x.js` is `./x.ts` in the sources
 * (NodeNext resolution), a folder is its `index.ts`. `undefined` when nothing is there (a JSON
 * module is returned as itself).
 */
export function resolveImport(
  from: string,
  spec: string,
  exists: (file: string) => boolean = existsSync,
): string | undefined {
  const target = path.resolve(path.dirname(from), spec);
  const candidates = [target.replace(/\.js$/, '.ts'), target, path.join(target, 'index.ts')];
  return candidates.find((candidate) => exists(candidate) && (exists !== existsSync || isFile(candidate)));
}

function isFile(file: string): boolean {
  return statSync(file).isFile();
}

/**
 * The cycles of a directed graph: its strongly connected components of more than one node (Tarjan),
 * each sorted, the list sorted, so that a failure message is stable.
 */
export function cyclesOf(nodes: Iterable<string>, next: (node: string) => Iterable<string>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const other of next(node)) {
      if (!index.has(other)) {
        visit(other);
        low.set(node, Math.min(low.get(node)!, low.get(other)!));
      } else if (onStack.has(other)) {
        low.set(node, Math.min(low.get(node)!, index.get(other)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const node of nodes) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}
