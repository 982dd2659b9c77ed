import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { Embedder } from '../foundation/ports/embedder.js';
import { createHashingEmbedder } from '../foundation/ports/hashing-embedder.js';
import { MemoryStateStore } from '../foundation/ports/memory-state-store.js';
import { EMBEDDING_SCOPE, SemanticIndex } from './semantic-index.js';

/** The hashing embedder, counting the texts it embeds and failing while `broken` is set. */
function countingEmbedder() {
  const inner = createHashingEmbedder(64);
  const state = { texts: 0, calls: 0, broken: false };
  const embedder: Embedder = {
    model: inner.model,
    async embed(texts, options) {
      state.calls++;
      if (state.broken) throw new GatewayError('backend_unavailable', 'model server down');
      state.texts += texts.length;
      return inner.embed(texts, options);
    },
  };
  return { embedder, state };
}

const tools = [
  makeTool('wx:forecast', { description: 'Weather forecast for a city' }),
  makeTool('mail:send', { description: 'Send an email message' }),
  makeTool('fs:read', { description: 'Read a file from disk' }),
];

describe('SemanticIndex', () => {
  it('embeds in the background, is ready once every tool has a vector, then ranks by similarity', async () => {
    const { embedder, state } = countingEmbedder();
    const index = new SemanticIndex({ embedder, store: new MemoryStateStore(), batchSize: 2 });
    for (const tool of tools) index.upsert(tool);
    expect(index.ready).toBe(false);
    expect(index.status()).toMatchObject({ embedded: 0, pending: 3 });
    await index.whenIdle();
    expect(index.ready).toBe(true);
    expect(state).toMatchObject({ texts: 3, calls: 2 });
    const hits = await index.search('forecast weather', { limit: 2 });
    expect(hits[0]!.id).toBe('wx:forecast');
    const filtered = await index.search('forecast weather', {
      limit: 2,
      filter: (t) => t.namespace === 'fs',
    });
    expect(filtered.map((h) => h.id)).toEqual(['fs:read']);
  });

  it('re-embeds nothing after a restart, nor for an unchanged tool; only changed text', async () => {
    const store = new MemoryStateStore();
    const first = countingEmbedder();
    const index = new SemanticIndex({ embedder: first.embedder, store });
    for (const tool of tools) index.upsert(tool);
    await index.whenIdle();
    expect(store.count(EMBEDDING_SCOPE)).toBe(3);

    const second = countingEmbedder();
    const restarted = new SemanticIndex({ embedder: second.embedder, store });
    for (const tool of tools) restarted.upsert(tool);
    expect(restarted.ready).toBe(true);
    restarted.upsert({ ...tools[0]!, tags: ['new-object-same-text'] });
    restarted.upsert(makeTool('wx:forecast', { description: 'Tide tables for a harbour' }));
    expect(restarted.ready).toBe(false);
    await restarted.whenIdle();
    expect(second.state.texts).toBe(1);
    expect((await restarted.search('tide harbour', { limit: 1 }))[0]!.id).toBe('wx:forecast');
  });

  it('re-embeds a stored vector it cannot read (damaged store) instead of failing', async () => {
    const store = new MemoryStateStore();
    const first = countingEmbedder();
    const index = new SemanticIndex({ embedder: first.embedder, store });
    for (const tool of tools) index.upsert(tool);
    await index.whenIdle();
    for (const [key] of store.entries(EMBEDDING_SCOPE))
      store.set(EMBEDDING_SCOPE, key, new Uint8Array([1, 2, 3]));

    const second = countingEmbedder();
    const restarted = new SemanticIndex({ embedder: second.embedder, store });
    for (const tool of tools) restarted.upsert(tool);
    await restarted.whenIdle();
    expect(second.state.texts).toBe(3);
    expect((await restarted.search('tide harbour', { limit: 3 })).length).toBeGreaterThan(0);
  });

  it('keeps a different model apart: its vectors are its own', async () => {
    const store = new MemoryStateStore();
    const a = new SemanticIndex({ embedder: createHashingEmbedder(32), store });
    a.upsert(tools[0]!);
    await a.whenIdle();
    const b = countingEmbedder();
    const other = new SemanticIndex({ embedder: b.embedder, store });
    other.upsert(tools[0]!);
    await other.whenIdle();
    expect(b.state.texts).toBe(1);
    expect(store.count(EMBEDDING_SCOPE)).toBe(2);
  });

  it('survives a failing embedder: reports the error, stays not ready, and retries', async () => {
    const { embedder, state } = countingEmbedder();
    state.broken = true;
    const index = new SemanticIndex({ embedder, store: new MemoryStateStore(), retryMs: 20 });
    index.upsert(tools[0]!);
    await index.whenIdle();
    expect(index.ready).toBe(false);
    expect(index.status().lastError).toContain('model server down');
    state.broken = false;
    await new Promise((resolve) => setTimeout(resolve, 60));
    await index.whenIdle();
    expect(index.ready).toBe(true);
    expect(index.status().lastError).toBeUndefined();
    index.close();
  });

  it('forgets removed tools, even while their batch was embedding', async () => {
    const index = new SemanticIndex({ embedder: createHashingEmbedder(), store: new MemoryStateStore() });
    for (const tool of tools) index.upsert(tool);
    index.remove('mail:send');
    await index.whenIdle();
    expect(index.status()).toMatchObject({ embedded: 2, pending: 0 });
    expect((await index.search('send email message', { limit: 5 })).map((h) => h.id)).not.toContain(
      'mail:send',
    );
  });

  it('gives vectors of other texts from the store, the recent queries, or one embedding call, and stores them', async () => {
    const store = new MemoryStateStore();
    const { embedder, state } = countingEmbedder();
    const index = new SemanticIndex({ embedder, store });
    const reference = createHashingEmbedder(64);
    const [stored] = await index.vectorsOf(['weather in paris']);
    expect(state).toMatchObject({ texts: 1, calls: 1 });
    await index.search('send a mail', { limit: 1 }); // embeds the query: 2 calls
    const vectors = await index.vectorsOf(['weather in paris', 'send a mail', 'read a file', 'list files']);
    // Only the two never seen were embedded, in one call.
    expect(state).toMatchObject({ texts: 4, calls: 3 });
    const expected = await reference.embed(['weather in paris', 'send a mail', 'read a file', 'list files']);
    vectors.forEach((vector, i) => {
      expect([...vector]).toEqual([...expected[i]!]);
    });
    expect([...stored!]).toEqual([...expected[0]!]);
    // All four are in the store now, the recent query's too: a restart embeds none.
    expect(store.count(EMBEDDING_SCOPE)).toBe(4);
    const restarted = countingEmbedder();
    const again = new SemanticIndex({ embedder: restarted.embedder, store });
    await again.vectorsOf(['list files', 'send a mail']);
    expect(restarted.state.calls).toBe(0);
  });
});
