import { describe, expect, it } from 'vitest';
import { describeEventStoreContract } from './event-store.contract.js';
import { InMemoryEventStore } from './in-memory-event-store.js';
import { SessionEventStore } from './session-event-store.js';

const note = (n: number) =>
  ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: n } }) as const;

describeEventStoreContract('SessionEventStore', () => new SessionEventStore(new InMemoryEventStore(), 's1'));

describe('SessionEventStore', () => {
  it("keeps each session's standalone stream apart in one shared store", async () => {
    const shared = new InMemoryEventStore();
    const alice = new SessionEventStore(shared, 'alice-session');
    const bob = new SessionEventStore(shared, 'bob-session');
    const first = await alice.storeEvent('_GET_stream', note(1));
    await bob.storeEvent('_GET_stream', note(2));
    const second = await alice.storeEvent('_GET_stream', note(3));
    const sent: unknown[] = [];
    const stream = await alice.replayEventsAfter(first, { send: async (id, m) => void sent.push([id, m]) });
    expect(stream).toBe('_GET_stream');
    expect(sent).toEqual([[second, note(3)]]);
  });

  it("treats another session's event id as unknown: no stream, no replay", async () => {
    const shared = new InMemoryEventStore();
    const alice = new SessionEventStore(shared, 'alice-session');
    const bob = new SessionEventStore(shared, 'bob-session');
    const hers = await alice.storeEvent('_GET_stream', note(1));
    await alice.storeEvent('_GET_stream', note(2));
    expect(await bob.getStreamIdForEventId(hers)).toBeUndefined();
    const sent: unknown[] = [];
    await expect(bob.replayEventsAfter(hers, { send: async (...m) => void sent.push(m) })).rejects.toThrow();
    expect(sent).toEqual([]);
  });

  it('does not store a message sent on a stream no client reads, and only that message, once', async () => {
    const shared = new InMemoryEventStore();
    const store = new SessionEventStore(shared, 's1');
    const answer = { jsonrpc: '2.0', id: 1, result: {} } as const;
    const other = { jsonrpc: '2.0', id: 1, result: {} } as const;
    const priming = await store.storeEvent('stream-a', {} as never);
    store.unread(answer);
    await store.storeEvent('stream-a', answer);
    expect(shared.size).toBe(0);
    // An equal message is another message; the same one sent again is stored.
    await store.storeEvent('stream-a', other);
    await store.storeEvent('stream-a', answer);
    expect(shared.size).toBe(2);
    const sent: unknown[] = [];
    await store.replayEventsAfter(priming, { send: async (_id, m) => void sent.push(m) });
    expect(sent).toEqual([other, answer]);
  });

  it("does not store a request stream's priming event: its id names the stream, and a resume from it replays all of it", async () => {
    const shared = new InMemoryEventStore();
    const store = new SessionEventStore(shared, 's1');
    const priming = await store.storeEvent('post-1', {} as never);
    expect(shared.size).toBe(0);
    const first = await store.storeEvent('post-1', note(1));
    await store.storeEvent('post-2', note(9));
    const second = await store.storeEvent('post-1', note(2));
    expect(await store.getStreamIdForEventId(priming)).toBe('post-1');
    const sent: unknown[] = [];
    const stream = await store.replayEventsAfter(priming, { send: async (id, m) => void sent.push([id, m]) });
    expect(stream).toBe('post-1');
    expect(sent).toEqual([
      [first, note(1)],
      [second, note(2)],
    ]);
    // A resume from a later event still replays only what came after it.
    sent.length = 0;
    await store.replayEventsAfter(first, { send: async (id, m) => void sent.push([id, m]) });
    expect(sent).toEqual([[second, note(2)]]);
  });

  it("stores the standalone stream's priming events, which each GET opens anew", async () => {
    const shared = new InMemoryEventStore();
    const store = new SessionEventStore(shared, 's1');
    await store.storeEvent('_GET_stream', note(1));
    const reopened = await store.storeEvent('_GET_stream', {} as never);
    const after = await store.storeEvent('_GET_stream', note(2));
    expect(shared.size).toBe(3);
    expect(reopened.endsWith('#start')).toBe(false);
    const sent: unknown[] = [];
    await store.replayEventsAfter(reopened, { send: async (id, m) => void sent.push([id, m]) });
    expect(sent).toEqual([[after, note(2)]]);
    expect(await store.getStreamIdForEventId('s1/_GET_stream#start')).toBeUndefined();
  });

  it("treats another session's priming event id as unknown: no stream, no replay", async () => {
    const shared = new InMemoryEventStore();
    const alice = new SessionEventStore(shared, 'alice-session');
    const bob = new SessionEventStore(shared, 'bob-session');
    const hers = await alice.storeEvent('post-1', {} as never);
    await alice.storeEvent('post-1', note(1));
    expect(await bob.getStreamIdForEventId(hers)).toBeUndefined();
    const sent: unknown[] = [];
    await expect(bob.replayEventsAfter(hers, { send: async (...m) => void sent.push(m) })).rejects.toThrow();
    expect(sent).toEqual([]);
  });

  it('stores nothing while muted', async () => {
    const shared = new InMemoryEventStore();
    const store = new SessionEventStore(shared, 's1');
    store.muted = true;
    await store.storeEvent('stream', note(1));
    expect(shared.size).toBe(0);
    store.muted = false;
    await store.storeEvent('stream', note(2));
    expect(shared.size).toBe(1);
  });
});
