import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { InMemorySource } from './in-memory-source.js';
import { runSourceContract } from './source.contract.js';

const entries = () => ['m:a', 'm:b', 'm:c'].map((id) => makeEntry(makeTool(id)));

runSourceContract('InMemorySource', async () => ({
  source: new InMemorySource('module:m.ts', 'local', entries()),
  ids: ['m:a', 'm:b', 'm:c'],
}));

describe('InMemorySource', () => {
  it('publishes a replaced set at once when started, and only at start before', async () => {
    const source = new InMemorySource('module:m.ts', 'local', entries());
    const published: string[][] = [];
    source.replace([makeEntry(makeTool('m:z'))]);
    expect(published).toEqual([]);
    await source.start((list) => {
      published.push(list.map((entry) => entry.tool.id));
      return [];
    });
    source.replace([makeEntry(makeTool('m:y')), makeEntry(makeTool('m:x'))]);
    expect(published).toEqual([['m:z'], ['m:y', 'm:x']]);
    expect(source.state()).toEqual({ state: 'connected', tools: 2 });
  });
});
