import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { LexicalIndex } from './lexical-index.js';

describe('LexicalIndex scoring', () => {
  const index = new LexicalIndex();
  index.upsert(makeSearchTool({ id: 'github:create_issue', description: 'Open a ticket in a repository.' }));
  index.upsert(makeSearchTool({ id: 'jira:new_ticket', description: 'Create an issue in a project.' }));
  index.upsert(makeSearchTool({ id: 'fs:read', description: 'Read a file.' }));
  const score = (query: string, id: string) =>
    index.search(query, { limit: 10 }).find((h) => h.id === id)?.score;

  it('counts 2 for a name token, 1 for a token of another field, over 2·|Q|', () => {
    // "create issue" is the name of one (2 + 2, and a substring of its id) and the description of
    // the other (1 + 1).
    expect(score('create issue', 'github:create_issue')).toBe(4 / 4 + 0.5);
    expect(score('create issue', 'jira:new_ticket')).toBe(2 / 4);
    // One of two query tokens in the description; the unknown word still counts in |Q|.
    expect(score('project zebra', 'jira:new_ticket')).toBe(1 / 4);
  });

  it('adds 0.5 when the query is a substring of the id, separators and case ignored', () => {
    expect(score('CreateIssue', 'github:create_issue')).toBe(1 + 0.5);
    expect(score('git', 'github:create_issue')).toBe(0.5);
    expect(score('hubcreate', 'github:create_issue')).toBe(0.5);
  });

  it('adds 1 more when the query equals the name or the id', () => {
    expect(score('read', 'fs:read')).toBe(1 + 0.5 + 1);
    // fs is the namespace (1), read the name (2).
    expect(score('FS:Read', 'fs:read')).toBe(3 / 4 + 0.5 + 1);
  });

  it('ranks by score, then id', () => {
    expect(index.search('issue', { limit: 10 }).map((h) => h.id)).toEqual([
      'github:create_issue',
      'jira:new_ticket',
    ]);
  });

  it('keeps substring matches right after removals and replacements', () => {
    const local = new LexicalIndex();
    local.upsert(makeSearchTool({ id: 'a:alpha' }));
    local.upsert(makeSearchTool({ id: 'b:alphabet' }));
    expect(local.search('alph', { limit: 5 }).map((h) => h.id)).toEqual(['a:alpha', 'b:alphabet']);
    local.remove('a:alpha');
    local.upsert(makeSearchTool({ id: 'c:beta' }));
    expect(local.search('alph', { limit: 5 }).map((h) => h.id)).toEqual(['b:alphabet']);
    expect(local.search('bet', { limit: 5 }).map((h) => h.id)).toEqual(['b:alphabet', 'c:beta']);
  });
});
