import { describe, expect, it } from 'vitest';
import { describeEventStoreContract } from './event-store.contract.js';
import { InMemoryEventStore } from './in-memory-event-store.js';

describeEventStoreContract('InMemoryEventStore', () => new InMemoryEventStore());

describe('InMemoryEventStore bound', () => {
  it('drops the oldest events past its bound; resuming from a dropped one is refused', async () => {
    const store = new InMemoryEventStore(3);
    const first = await store.storeEvent('a', { jsonrpc: '2.0', method: 'notifications/message' });
    for (let i = 0; i < 3; i++)
      await store.storeEvent('a', { jsonrpc: '2.0', method: 'notifications/message' });
    expect(store.size).toBe(3);
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    await expect(store.replayEventsAfter(first, { send: async () => {} })).rejects.toThrow();
  });
});
