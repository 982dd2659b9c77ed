import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SOURCE_DRIVERS } from '../../src/sources/source-drivers.js';

/**
 * A source kind is its folder `src/sources/<kind>/` and one entry of `SOURCE_DRIVERS`: its literal
 * name (`'openapi'`) is used as a kind only there. Everywhere else a kind comes from the list (a
 * union derived from it, a driver's `kind`, a flag such as `trustGated`), so adding a kind never
 * means hunting for the places that name the others.
 *
 * "Used as a kind" is checked at kind positions only, since the same words are other things too
 * (`'mcp'` and `'a2a'` are surface and format names, `'local'` a caller identity):
 * `kind: 'x'` / `kind = 'x'`, `kind === 'x'` (either side), a member of a `…Kind` type or a
 * `…KINDS` constant, a type argument of a `…Source<…>`, an argument of `new …Source(…)` or of
 * `localEntries(…)`.
 */

const SRC = path.resolve(import.meta.dirname, '../../src');
const KINDS = SOURCE_DRIVERS.map((driver) => driver.kind);

/** Kind literals used as kinds on purpose outside their folder: file (from src/), kind, reason. */
const EXCEPTIONS: readonly { file: string; kind: string; reason: string }[] = [];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The patterns of `kind` used as a kind, each with a name for the failure message. */
function kindPositions(kind: string): [string, RegExp][] {
  const literal = `['"\`]${kind}['"\`]`;
  return [
    ['kind: / kind =', new RegExp(`\\bkind\\??\\s*[:=]\\s*${literal}`)],
    [
      'kind comparison',
      new RegExp(`\\bkind\\s*[!=]==?\\s*${literal}|${literal}\\s*[!=]==?\\s*[\\w.?]*\\bkind\\b`),
    ],
    ['…Kind type member', new RegExp(`\\btype\\s+\\w*Kinds?\\b[^;]*?${literal}`)],
    ['…KINDS constant member', new RegExp(`\\b\\w*KINDS?\\b[^;]*?${literal}`)],
    ['…Source<…> type argument', new RegExp(`\\w*Source<[^>]*${literal}`)],
    ['source constructor argument', new RegExp(`new\\s+\\w*Source\\([^)]*${literal}`)],
    ['localEntries argument', new RegExp(`localEntries\\([^)]*${literal}`)],
  ];
}

/** Where `text` uses a kind literal as a kind: `<kind> as <position>` for each hit. */
function kindUses(text: string): string[] {
  const uses: string[] = [];
  for (const kind of KINDS) {
    for (const [position, pattern] of kindPositions(kind)) {
      if (pattern.test(text)) uses.push(`${kind} as ${position}`);
    }
  }
  return uses;
}

/** Whether `file` (relative to src/) may name `kind`: in its own folder (or the list). */
function mayName(file: string, kind: string): boolean {
  return file.startsWith(`sources/${kind}/`) || file === 'sources/source-drivers.ts';
}

describe('source kinds', () => {
  it('each kind has its driver at src/sources/<kind>/<kind>-driver.ts, listed once', () => {
    expect(new Set(KINDS).size).toBe(KINDS.length);
    const missing = KINDS.filter((kind) => !existsSync(path.join(SRC, 'sources', kind, `${kind}-driver.ts`)));
    expect(missing).toEqual([]);
  });

  it('the kind-position patterns catch kinds used as kinds and leave other uses of the words alone', () => {
    const kind = KINDS[KINDS.length - 1] as string;
    for (const used of [
      `origin: { sourceId: id, kind: '${kind}', originalName: n }`,
      `if (source.kind === '${kind}') {}`,
      `if ('${kind}' !== tool.origin.kind) {}`,
      `export type SourceKind = 'x' | '${kind}';`,
      `const GATED_KINDS = new Set(['x', '${kind}']);`,
      `private loaded(): LoadedSource<'x' | '${kind}'>[] {}`,
      `new InMemorySource('id', '${kind}', entries)`,
      `localEntries('id', '${kind}', definitions)`,
    ]) {
      expect(kindUses(used), used).not.toEqual([]);
    }
    for (const other of [
      `caller: { ...caller, surface: '${kind}' }`,
      `errorForSurface(error, '${kind}')`,
      `const log = context.log.child({ component: '${kind}' });`,
      `tags: normalizeTags([...tags, '${kind}'])`,
      `kind: LOCAL_DRIVER.kind`,
    ]) {
      expect(kindUses(other), other).toEqual([]);
    }
  });

  it('no file outside a kind’s folder and the driver list uses its literal name as a kind', () => {
    const found: string[] = [];
    for (const full of sourceFiles(SRC)) {
      const file = path.relative(SRC, full).split(path.sep).join('/');
      const text = readFileSync(full, 'utf8');
      for (const kind of KINDS) {
        if (mayName(file, kind)) continue;
        if (EXCEPTIONS.some((exception) => exception.file === file && exception.kind === kind)) continue;
        for (const [position, pattern] of kindPositions(kind)) {
          if (pattern.test(text)) found.push(`${file}: '${kind}' as ${position}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('every listed exception is still needed', () => {
    const stale = EXCEPTIONS.filter(({ file, kind }) => {
      const full = path.join(SRC, file);
      return (
        !existsSync(full) ||
        kindUses(readFileSync(full, 'utf8')).every((use) => !use.startsWith(`${kind} as`))
      );
    });
    expect(stale).toEqual([]);
  });
});
