import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

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

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

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
});
