import { beforeAll, describe, expect, it } from 'vitest';
import { configKeys, referencePages } from '../../scripts/docs-reference.js';
import { configJsonSchema } from '../../src/config/config-json-schema.js';

/*
 * Every key of the config reference carries a description, and the description lives in the zod
 * schema (`.describe()`), since the page is generated from it. This test reads the generated
 * config page the way a user does — the Description cell of a key's row, the paragraph under a
 * section's heading — so a key added without a description, or one whose description is lost
 * (a `.describe()` dropped in a refactor), fails here by name.
 */

/** Splits a Markdown table row into its cells; `\|` inside a cell is not a separator. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/**
 * The keys of `paths` whose description is empty on the config page `page`: a dotted key's row has
 * an empty Description cell (a "**Required.**" note alone is no description), or has no row; a
 * section (a top-level key) has no paragraph between its heading and its `Type:` line.
 */
function undescribedKeys(page: string, paths: readonly string[]): string[] {
  const rows = new Map<string, string>();
  for (const line of page.split('\n')) {
    if (!line.startsWith('| `')) continue;
    const [key, , , description] = cells(line);
    if (key === undefined || description === undefined) continue;
    rows.set(key.slice(1, -1).replace(/\\\|/g, '|'), description.replace('**Required.**', '').trim());
  }
  const missing: string[] = [];
  for (const path of paths) {
    if (path.includes('.') || path.includes('[')) {
      if ((rows.get(path) ?? '') === '') missing.push(path);
      continue;
    }
    const section = page.split(`\n## ${path}\n`)[1] ?? '';
    const firstParagraph = section.trimStart().split('\n')[0] ?? '';
    if (firstParagraph === '' || firstParagraph.startsWith('Type:')) missing.push(path);
  }
  return missing;
}

let page: string;
beforeAll(async () => {
  page = (await referencePages()).get('config.md') ?? '';
});

describe('config key descriptions', () => {
  it('every key of the config schema has a non-empty description on the reference page', () => {
    const paths = configKeys(configJsonSchema()).map((key) => key.path);
    expect(paths.length).toBeGreaterThan(500);
    // Keys from every part of the schema: the source sections, shared sub-schemas, src/config.
    expect(paths).toEqual(
      expect.arrayContaining([
        'servers.<name>.sandbox.limits.pids',
        'mcpServers.<name>.oauth.clientId',
        'openapi[].include',
        'commands.<name>.sandbox.secrets.<name>.hosts',
        'search.bm25.boosts.learned',
        'skills[].steps[].when',
      ]),
    );
    expect(undescribedKeys(page, paths)).toEqual([]);
  });

  it('the check names a key whose row has no description, and a section with no paragraph', () => {
    const fabricated = [
      '## alpha',
      '',
      'Type: `object`',
      '',
      '| Key | Type | Default | Description |',
      '| --- | --- | --- | --- |',
      '| `alpha.described` | `"a" \\| "b"` | `"a"` | Says what it does. |',
      '| `alpha.bare` | `integer` | `1` |  |',
      '| `alpha.requiredOnly` | `string` |  |  **Required.** |',
      '',
      '## beta',
      '',
      'The beta section.',
      '',
      'Type: `object`',
    ].join('\n');
    expect(
      undescribedKeys(fabricated, [
        'alpha',
        'alpha.described',
        'alpha.bare',
        'alpha.requiredOnly',
        'alpha.absent',
        'beta',
      ]),
    ).toEqual(['alpha', 'alpha.bare', 'alpha.requiredOnly', 'alpha.absent']);
  });
});
