/**
 * Every Markdown document a source comment cites exists in the repository, at the path the comment
 * names (from the repository root). Comments once cited a design document the repository did not
 * have; it is now docs/DESIGN.md, and this test keeps citations from pointing nowhere.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Every .ts file under `dir`, recursively. */
function typeScriptFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...typeScriptFiles(path));
    else if (entry.name.endsWith('.ts')) found.push(path);
  }
  return found;
}

/** The text of the comments of a source file: `// …` to the end of the line and `/* … *\/` blocks. */
function commentsOf(source: string): string[] {
  return [...source.matchAll(/\/\*[\s\S]*?\*\/|(?<![:'"`\\])\/\/[^\n]*/g)].map((match) => match[0]);
}

/** The Markdown files a comment names (`docs/SEARCH.md`, `README.md`). */
function citedDocuments(comment: string): string[] {
  return [...comment.matchAll(/(?<![\w./-])((?:[\w-]+\/)*[\w-]+\.md)\b/g)].map((match) => match[1]!);
}

describe('comment citations', () => {
  it('finds citations in comments only', () => {
    const source = '// see docs/DESIGN.md §4\nconst file = \'tools/readme.md\';\n/** README.md, "x" */';
    expect(commentsOf(source).flatMap(citedDocuments)).toEqual(['docs/DESIGN.md', 'README.md']);
  });

  it('cites only documents the repository has', () => {
    const missing: string[] = [];
    for (const file of [...typeScriptFiles(join(ROOT, 'src')), ...typeScriptFiles(join(ROOT, 'test'))]) {
      for (const document of commentsOf(readFileSync(file, 'utf8')).flatMap(citedDocuments)) {
        if (!existsSync(join(ROOT, document))) missing.push(`${relative(ROOT, file)}: ${document}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
