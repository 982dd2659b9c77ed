import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/**
 * A gateway on its default search settings reads the abbreviations people type as the catalog
 * writes them ("PR" for the `pull_request` of the tool names); `search.expandQueries: false` turns
 * that off.
 */
describe('abbreviations in search, by default', () => {
  let dir: string;
  let module: string;
  const gateways: Gateway[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-abbrev-'));
    module = path.join(dir, 'code-host.mjs');
    const tool = (name: string, description: string) =>
      `export const ${name} = { namespace: 'code', name: '${name}', description: '${description}', ` +
      `inputSchema: { type: 'object', properties: { repo: { type: 'string' } } }, handler: () => ({}) };`;
    await writeFile(
      module,
      [
        tool('create_pull_request', 'Open a new pull request from a branch.'),
        tool('list_pull_requests', 'List the pull requests of a repository.'),
        tool('merge_pull_request', 'Merge a pull request into its base branch.'),
        tool('list_issues', 'List the issues of a repository.'),
        tool('list_branches', 'List the branches of a repository.'),
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await rm(dir, { recursive: true, force: true });
  });

  async function firstFor(query: string, search: Record<string, unknown> = {}) {
    const gateway = await gatewayFrom({ tools: { builtin: false, modules: [module] }, search });
    gateways.push(gateway);
    const page = await gateway.scope.search({ query, limit: 3, explain: true });
    return page;
  }

  it('finds the pull request tool for "PR", and says which words it read', async () => {
    const page = await firstFor('merge my PR into main');
    expect(page.tools[0]?.id).toBe('code:merge_pull_request');
    expect(page.tools[0]?.explanation?.expansions).toEqual({ pr: ['pull', 'request'] });
  });

  it('reads nothing into "PR" with expandQueries: false', async () => {
    const page = await firstFor('merge my PR into main', { expandQueries: false });
    expect(page.tools[0]?.explanation?.expansions ?? {}).toEqual({});
    // Without the reading, "list" ties every list_ tool; with it, the pull request one leads.
    const plain = (await firstFor('list my PRs', { expandQueries: false })).tools.map((t) => t.id);
    expect(plain[0]).not.toBe('code:list_pull_requests');
    const read = (await firstFor('list my PRs')).tools.map((t) => t.id);
    expect(read[0]).toBe('code:list_pull_requests');
  });
});
