import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { dot, type Embedder } from '../foundation/ports/embedder.js';
import { createHashingEmbedder } from '../foundation/ports/hashing-embedder.js';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import { LearnedQueries } from './learned-queries.js';
import { QueryMemory } from './query-memory.js';
import { SemanticIndex } from './semantic-index.js';

const DAY = 86_400_000;

/** The hashing embedder, counting texts and failing while `broken` is set. */
function countingEmbedder() {
  const inner = createHashingEmbedder(64);
  const state = { texts: [] as string[], broken: false };
  const embedder: Embedder = {
    model: inner.model,
    async embed(texts, options) {
      if (state.broken) throw new GatewayError('backend_unavailable', 'model server down');
      state.texts.push(...texts);
      return inner.embed(texts, options);
    },
  };
  return { embedder, state, inner };
}

function setup(options: { store?: MemoryStateStore; neighbours?: number; maxQueries?: number } = {}) {
  const store = options.store ?? new MemoryStateStore();
  const { embedder, state, inner } = countingEmbedder();
  let now = 1_000_000;
  const learned = new LearnedQueries({ store, halfLifeMs: 10 * DAY, now: () => now });
  const semantic = new SemanticIndex({ embedder, store });
  const memory = new QueryMemory({
    learned,
    semantic,
    neighbours: options.neighbours ?? 10,
    maxQueries: options.maxQueries ?? 100,
    retryMs: 10,
  });
  const vectorOf = async (text: string) => (await inner.embed([text]))[0]!;
  return { store, learned, memory, state, vectorOf, advance: (ms: number) => (now += ms) };
}

const all = () => true;

describe('QueryMemory', () => {
  it('ranks tools by the similarity × weight of the learned queries nearest the query', async () => {
    const { learned, memory, vectorOf } = setup();
    learned.learn('wx:forecast', 'weather in paris tomorrow');
    learned.learn('wx:forecast', 'weather in paris tomorrow');
    learned.learn('wx:now', 'weather in paris now');
    learned.learn('mail:send', 'send a mail to bob');
    expect(memory.status()).toEqual({ queries: 0, pending: 3 });
    await memory.whenIdle();
    expect(memory.status()).toEqual({ queries: 3, pending: 0 });

    const query = await vectorOf('paris weather');
    const similarity = async (text: string) => dot(query, await vectorOf(text));
    const hits = memory.search(query, { limit: 10, filter: all });
    const expected = [
      { id: 'wx:forecast', score: 2 * (await similarity('weather in paris tomorrow')) },
      { id: 'wx:now', score: await similarity('weather in paris now') },
    ];
    expect(hits.map((h) => h.id)).toEqual(['wx:forecast', 'wx:now']); // mail shares no word: 0
    hits.forEach((hit, i) => {
      expect(hit.score).toBeCloseTo(expected[i]!.score, 5);
    });
    expect(memory.search(query, { limit: 1, filter: all }).map((h) => h.id)).toEqual(['wx:forecast']);
    expect(memory.search(query, { limit: 10, filter: (id) => id !== 'wx:forecast' })).toHaveLength(1);
  });

  it('lets only the nearest `neighbours` learned queries vote', async () => {
    const { learned, memory, vectorOf } = setup({ neighbours: 1 });
    learned.learn('a', 'weather in paris');
    learned.learn('b', 'weather in rome today');
    await memory.whenIdle();
    const hits = memory.search(await vectorOf('weather in paris'), { limit: 10, filter: all });
    expect(hits.map((h) => h.id)).toEqual(['a']);
  });

  it('embeds each query once whatever its case, and nothing again after a restart', async () => {
    const first = setup();
    first.learned.learn('a', 'Weather in Paris');
    first.learned.learn('b', 'weather in paris');
    first.learned.flush();
    await first.memory.whenIdle();
    expect(first.state.texts).toEqual(['Weather in Paris']);

    const second = setup({ store: first.store });
    await second.memory.whenIdle();
    expect(second.state.texts).toEqual([]);
    expect(second.memory.status()).toEqual({ queries: 1, pending: 0 });
    const hits = second.memory.search(await second.vectorOf('paris'), { limit: 10, filter: all });
    expect(hits.map((h) => h.id).sort()).toEqual(['a', 'b']);
  });

  it('stops voting with a query every tool has let fade', async () => {
    const { learned, memory, vectorOf, advance } = setup();
    learned.learn('a', 'weather in paris');
    await memory.whenIdle();
    advance(60 * DAY);
    expect(memory.search(await vectorOf('weather in paris'), { limit: 10, filter: all })).toEqual([]);
    expect(memory.status().queries).toBe(0);
  });

  it('keeps at most `maxQueries` vectors, forgetting the least recently learned, after a restart too', async () => {
    const { store, learned, memory, vectorOf, advance } = setup({ maxQueries: 2 });
    const found = async (m: QueryMemory, text: string) =>
      m.search(await vectorOf(text), { limit: 10, filter: all }).map((h) => h.id);
    learned.learn('a', 'alpha');
    advance(1000);
    learned.learn('b', 'beta');
    advance(1000);
    learned.learn('a', 'alpha'); // learned again: now beta is the least recent
    advance(1000);
    learned.learn('c', 'gamma');
    await memory.whenIdle();
    expect(memory.status()).toEqual({ queries: 2, pending: 0 });
    expect(await found(memory, 'beta')).toEqual([]);
    expect(await found(memory, 'alpha')).toEqual(['a']);
    expect(await found(memory, 'gamma')).toEqual(['c']);
    // A restart with room for one keeps the most recently learned.
    learned.flush();
    const restarted = setup({ store, maxQueries: 1 });
    await restarted.memory.whenIdle();
    expect(restarted.memory.status()).toEqual({ queries: 1, pending: 0 });
    expect(await found(restarted.memory, 'gamma')).toEqual(['c']);
  });

  it('reports a failing embedder and catches up once it works again', async () => {
    const { learned, memory, state } = setup();
    state.broken = true;
    learned.learn('a', 'weather in paris');
    await memory.whenIdle();
    expect(memory.status()).toEqual({ queries: 0, pending: 1, lastError: 'model server down' });
    state.broken = false;
    await new Promise((resolve) => setTimeout(resolve, 30));
    await memory.whenIdle();
    expect(memory.status()).toEqual({ queries: 1, pending: 0 });
  });

  it('learns nothing more once closed', async () => {
    const { learned, memory } = setup();
    memory.close();
    learned.learn('a', 'weather in paris');
    await memory.whenIdle();
    expect(memory.status()).toEqual({ queries: 0, pending: 0 });
  });
});
