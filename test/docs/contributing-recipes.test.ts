/**
 * CONTRIBUTING.md's recipes name the files a change touches; a recipe that names a file the
 * repository no longer has sends a contributor looking for nothing. Every repository path the
 * document names — in backticks (alone or inside a command) or as a link target — must exist.
 *
 * Placeholders are allowed explicitly: a path with `<…>` in it (`src/sources/<kind>/<kind>-driver.ts`)
 * stands for a file the contributor creates, so only the folder before the first placeholder must
 * exist (`src/sources/`).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Top-level folders and files whose paths the check recognises. */
const PATH_START =
  /^(?:(?:src|test|docs|bench|scripts|console|deploy)\/|(?:README|ARCHITECTURE|CONTRIBUTING)\.md$|package\.json$)/;

/**
 * Repository paths a Markdown text names: each whitespace-separated word of a backticked span that
 * starts like a repository path, and each relative link target. A `<placeholder>` is one word
 * even when it holds spaces (`test/e2e/<the files that cover it>`).
 */
function namedPaths(markdown: string): string[] {
  const found: string[] = [];
  for (const [, span] of markdown.matchAll(/`([^`\n]+)`/g)) {
    const words = span!.replace(/<[^<>]*>/g, '<>').split(/\s+/);
    for (const word of words) if (PATH_START.test(word)) found.push(word);
  }
  for (const [, target] of markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
    if (!/^[a-z]+:/.test(target!)) found.push(target!);
  }
  return found;
}

/** The part of a path that must exist: all of it, or the folder before its first placeholder. */
function mustExist(named: string): string {
  const placeholder = named.indexOf('<');
  if (placeholder === -1) return named;
  return named.slice(0, named.lastIndexOf('/', placeholder) + 1);
}

/** The named paths that are not in the repository. */
function missingPaths(markdown: string, exists: (file: string) => boolean): string[] {
  return namedPaths(markdown).filter((named) => {
    const required = mustExist(named);
    return !exists(required);
  });
}

describe('CONTRIBUTING.md recipes', () => {
  const markdown = readFileSync(path.join(ROOT, 'CONTRIBUTING.md'), 'utf8');

  it('has the six recipes', () => {
    const recipes = [...markdown.matchAll(/^### (.+)$/gm)].map((match) => match[1]);
    expect(recipes).toEqual([
      'Add a source kind',
      'Add a metatool',
      'Add a config key',
      'Add an error code',
      'Add a call policy',
      'Add a feature module',
    ]);
  });

  it('names only paths that exist (placeholders: their folder)', () => {
    expect(namedPaths(markdown).length).toBeGreaterThan(40);
    expect(missingPaths(markdown, (file) => existsSync(path.join(ROOT, file)))).toEqual([]);
  });

  it('reads paths, commands and placeholders as meant (it can fail)', () => {
    const text = [
      '- [ ] `src/a/gone.ts`: a file; `src/sources/<kind>/<kind>-driver.ts`, `src/nowhere/<x>.ts`',
      '- Run: `npx vitest run src/a test/<the e2e files> --flag`, `npm test`, [doc](docs/X.md#part)',
      '- [site](https://example.com) and `src/sources/source-drivers.ts`',
    ].join('\n');
    expect(namedPaths(text)).toEqual([
      'src/a/gone.ts',
      'src/sources/<>/<>-driver.ts',
      'src/nowhere/<>.ts',
      'src/a',
      'test/<>',
      'src/sources/source-drivers.ts',
      'docs/X.md',
    ]);
    const present = new Set(['src/sources/', 'src/a', 'test/', 'docs/X.md', 'src/sources/source-drivers.ts']);
    expect(missingPaths(text, (file) => present.has(file))).toEqual(['src/a/gone.ts', 'src/nowhere/<>.ts']);
  });
});
