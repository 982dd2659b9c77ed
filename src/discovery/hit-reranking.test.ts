import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import type { Tool } from '../foundation/model/tool.js';
import { boostByServer, penaliseAndLiftNamed } from './hit-reranking.js';

const tools = new Map<string, Tool>(['a:fetch', 'a:store', 'b:fetch_page'].map((id) => [id, makeTool(id)]));
const toolOf = (id: string) => tools.get(id);
const namespaceOf = (id: string) => tools.get(id)?.namespace;

describe('boostByServer', () => {
  it("multiplies each hit's score by 1 + weight × its server's score", () => {
    const hits = [
      { id: 'a:fetch', score: 2 },
      { id: 'b:fetch_page', score: 1.5 },
    ];
    const boosted = boostByServer(hits, new Map([['b', 1]]), 0.5, namespaceOf);
    expect(boosted).toEqual([
      { id: 'b:fetch_page', score: 2.25 },
      { id: 'a:fetch', score: 2 },
    ]);
  });

  it('leaves hits of unknown tools and servers as they are, and returns the list itself without scores', () => {
    const hits = [{ id: 'gone:tool', score: 1 }];
    expect(boostByServer(hits, new Map([['a', 1]]), 1, namespaceOf)).toEqual(hits);
    expect(boostByServer(hits, new Map(), 1, namespaceOf)).toBe(hits);
  });
});

describe('penaliseAndLiftNamed', () => {
  const hits = [
    { id: 'a:fetch', score: 3 },
    { id: 'b:fetch_page', score: 2 },
    { id: 'a:store', score: 1 },
  ];

  it('sinks a tool by its failure factor', () => {
    const failures = { factor: (id: string) => (id === 'a:fetch' ? 0.1 : 1) };
    expect(penaliseAndLiftNamed(hits, 'get a page', failures, toolOf).map((hit) => hit.id)).toEqual([
      'b:fetch_page',
      'a:store',
      'a:fetch',
    ]);
  });

  it('puts the tool the query names (by name or id, any case) above everything, penalised or not', () => {
    const failures = { factor: (id: string) => (id === 'a:store' ? 0.1 : 1) };
    expect(penaliseAndLiftNamed(hits, ' Store ', failures, toolOf)[0]?.id).toBe('a:store');
    expect(penaliseAndLiftNamed(hits, 'B:FETCH_PAGE', undefined, toolOf)[0]).toEqual({
      id: 'b:fetch_page',
      score: 2 + 3 + 1,
    });
  });
});
