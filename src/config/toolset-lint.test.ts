import { describe, expect, it } from 'vitest';
import { parseConfigValue } from './load-config.js';
import { toolsetWarnings } from './toolset-lint.js';

const warningsOf = (toolsets: unknown[], builtin = true) =>
  toolsetWarnings(parseConfigValue({ toolsets, tools: { builtin } }).config);

describe('toolsetWarnings', () => {
  it('names a listed id the tags keep out (the README docs toolset with time:now)', async () => {
    expect(
      await warningsOf([{ name: 'docs', tags: ['docs', 'wiki'], tools: ['confluence:*', 'time:now'] }]),
    ).toEqual([
      expect.stringMatching(
        /^toolsets\[0\]\.tools\[1\]: toolset "docs" can never include "time:now": it has none of the tags \[docs, wiki\]/,
      ),
    ]);
  });

  it('names a listed id outside namespaces, or matched by exclude', async () => {
    expect(
      await warningsOf([
        { name: 'a', namespaces: ['github'], tools: ['github:list', 'jira:search'] },
        { name: 'b', tools: ['x:delete_all'], exclude: ['x:delete_*'] },
      ]),
    ).toEqual([
      expect.stringContaining(
        'toolsets[0].tools[1]: toolset "a" can never include "jira:search": its namespace "jira" is not in namespaces',
      ),
      expect.stringContaining(
        'toolsets[1].tools[0]: toolset "b" can never include "x:delete_all": exclude matches it',
      ),
    ]);
  });

  it('says nothing for toolsets that can hold what they list, globs, or unknown tools', async () => {
    expect(
      await warningsOf([
        { name: 'docs', tools: ['confluence:*', 'time:now'], exclude: ['confluence:delete_*'] },
        { name: 'ro', annotations: { readOnlyHint: true }, tools: ['time:now'] },
        { name: 'tagged', tags: ['wiki'], tools: ['confluence:page'] },
      ]),
    ).toEqual([]);
    expect(await warningsOf([{ name: 'docs', tags: ['docs'], tools: ['time:now'] }], false)).toEqual([]);
  });
});
