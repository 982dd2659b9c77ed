import { describe, expect, it } from 'vitest';
import { makeSearchTool } from '../../test/support/test-tools.js';
import { QueryExpander } from './query-expansion.js';

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
});
