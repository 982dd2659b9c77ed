import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { QueryExpander } from './query-expansion.js';
import { VerbLexicon } from './verb-lexicon.js';

function expander() {
  const expander = new QueryExpander();
  for (const tool of [
    makeSearchTool({ id: 'github:create_pull_request', description: 'Open a pull request.' }),
    makeSearchTool({ id: 'github:list_pull_requests', description: 'List pull requests.' }),
    makeSearchTool({
      id: 'github:create_issue',
      inputSchema: { type: 'object', properties: { repoName: {} } },
    }),
    makeSearchTool({ id: 'kubernetes:list_pods', description: 'List pods in a namespace.' }),
    makeSearchTool({ id: 'k8s_ops:scale', description: 'Scale a deployment.' }),
  ])
    expander.upsert(tool);
  return expander;
}

describe('QueryExpander', () => {
  it('reads an acronym as the run of name words it abbreviates, plural or not', () => {
    expect(expander().expand('review my PRs')).toEqual({ prs: ['pull', 'request'] });
    expect(expander().expand('merge PR 42')).toEqual({ pr: ['pull', 'request'] });
  });

  it('reads a numeronym as the catalog word it abbreviates, and the other way round', () => {
    const long = new QueryExpander();
    long.upsert(makeSearchTool({ id: 'kubernetes:list_pods', description: 'List pods.' }));
    long.upsert(makeSearchTool({ id: 'web:fetch', description: 'Fetch a page.' }));
    expect(long.expand('list my K8s pods')).toEqual({ k8s: ['kubernetes'] });
    const short = new QueryExpander();
    short.upsert(makeSearchTool({ id: 'k8s:list_pods', description: 'List pods.' }));
    expect(short.expand('kubernetes pods')).toEqual({ kubernetes: ['k8s'] });
    // Both spellings in the catalog: each matches as it is.
    expect(expander().expand('k8s kubernetes')).toEqual({});
  });

  it('leaves words the catalog knows, stop words and unknown words alone', () => {
    const e = expander();
    expect(e.expand('list pods')).toEqual({});
    expect(e.expand('it do zq')).toEqual({});
  });

  it('follows removals: one name left is not enough to read an acronym', () => {
    const e = expander();
    e.remove('github:create_pull_request');
    expect(e.expand('PR')).toEqual({});
    e.upsert(makeSearchTool({ id: 'github:merge_pull_request' }));
    expect(e.expand('PR')).toEqual({ pr: ['pull', 'request'] });
    e.remove('nope:nothing');
  });

  describe('verb synonyms', () => {
    const lexicon = VerbLexicon.parse(
      ['remove v 1 0 1 0 00000001', 'get_rid_of v 1 0 1 0 00000003', 'erase v 1 0 1 0 00000002'].join('\n'),
      [
        '00000001 29 v 02 remove 0 withdraw 0 000 | take away',
        '00000002 29 v 03 delete 0 erase 0 remove 2 000 | wipe out',
        '00000003 40 v 02 get_rid_of 0 remove 1 000 | dispose of',
      ].join('\n'),
    );
    function verbs(abbreviations?: boolean) {
      const e = new QueryExpander({
        verbs: lexicon,
        ...(abbreviations === undefined ? {} : { abbreviations }),
      });
      e.upsert(makeSearchTool({ id: 'git:delete_branch', description: 'Delete a branch.' }));
      e.upsert(makeSearchTool({ id: 'git:remove_remote', description: 'Remove a remote.' }));
      e.upsert(makeSearchTool({ id: 'git:create_pull_request' }));
      e.upsert(makeSearchTool({ id: 'git:list_pull_requests' }));
      return e;
    }

    it('adds the related verbs that tool names use, phrases included, as the names spell them', () => {
      expect(verbs().expand('get rid of the stale branch')).toEqual({ 'get rid': ['remove'] });
      expect(verbs().expand('erase the branch')).toEqual({ eras: ['delete', 'remove'] });
    });

    it('leaves a verb that tool names use, and keeps only related verbs they use', () => {
      expect(verbs().expand('delete the branch')).toEqual({});
      // "withdraw" shares a sense with "remove", but no tool name says it.
      expect(Object.values(verbs().expand('erase the branch')).flat()).not.toContain('withdraw');
    });

    it('reads abbreviations only when asked', () => {
      expect(verbs().expand('erase my PRs')).toEqual({
        eras: ['delete', 'remove'],
        prs: ['pull', 'request'],
      });
      expect(verbs(false).expand('erase my PRs')).toEqual({ eras: ['delete', 'remove'] });
    });
  });
});
