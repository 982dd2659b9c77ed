import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import type { Tool } from '../foundation/model/tool.js';
import { preferByMetadata } from './metadata-preference.js';

const tools = new Map<string, Tool>(
  [
    makeTool('a:dear', { metadata: { cost: 9, latencyHintMs: 10 } }),
    makeTool('a:cheap', { metadata: { cost: 1, latencyHintMs: 900 } }),
    makeTool('a:unknown'),
    makeTool('a:free', { metadata: { cost: 0 } }),
  ].map((t) => [t.id, t]),
);
const toolOf = (id: string) => tools.get(id);

describe('preferByMetadata', () => {
  it('puts the cheaper of equally relevant hits first, those without a cost last', () => {
    const hits = [
      { id: 'a:unknown', score: 10 },
      { id: 'a:dear', score: 9.9 },
      { id: 'a:cheap', score: 9.6 },
    ];
    expect(preferByMetadata(hits, 'cheap', toolOf).map((h) => h.id)).toEqual([
      'a:cheap',
      'a:dear',
      'a:unknown',
    ]);
    expect(preferByMetadata(hits, 'fast', toolOf).map((h) => h.id)).toEqual([
      'a:dear',
      'a:cheap',
      'a:unknown',
    ]);
  });

  it('never lifts a hit past one clearly more relevant (beyond the 5% tolerance)', () => {
    const hits = [
      { id: 'a:dear', score: 10 },
      { id: 'a:free', score: 9 },
      { id: 'a:cheap', score: 8.9 },
    ];
    expect(preferByMetadata(hits, 'cheap', toolOf).map((h) => h.id)).toEqual(['a:dear', 'a:free', 'a:cheap']);
  });

  it('keeps the order of hits that declare the same figure, and keeps every score', () => {
    const hits = [
      { id: 'a:unknown', score: 5 },
      { id: 'a:free', score: 5 },
    ];
    const out = preferByMetadata(hits, 'fast', toolOf);
    expect(out).toEqual(hits);
  });
});
