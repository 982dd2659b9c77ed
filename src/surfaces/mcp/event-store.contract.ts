import { describe, expect, it } from 'vitest';
import type { EventStore } from './event-store.js';

type Message = Parameters<EventStore['storeEvent']>[1];

function note(n: number): Message {
  return { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } };
}

async function replay(
  store: EventStore,
  after: string,
): Promise<{ streamId: string; sent: [string, Message][] }> {
  const sent: [string, Message][] = [];
  const streamId = await store.replayEventsAfter(after, {
    send: async (eventId, message) => {
      sent.push([eventId, message]);
    },
  });
  return { streamId, sent };
}

/**
 * What every {@link EventStore} must do, for the in-memory one here and for a shared one later:
 * `describeEventStoreContract('name', () => new Store())` in the implementation's test file.
 */
export function describeEventStoreContract(
  name: string,
  create: () => EventStore | Promise<EventStore>,
): void {
  describe(`EventStore contract: ${name}`, () => {
    it('replays the events of the same stream stored after the given one, in order, with their ids', async () => {
      const store = await create();
      const a1 = await store.storeEvent('a', note(1));
      const b1 = await store.storeEvent('b', note(10));
      const a2 = await store.storeEvent('a', note(2));
      const a3 = await store.storeEvent('a', note(3));
      const { streamId, sent } = await replay(store, a1);
      expect(streamId).toBe('a');
      expect(sent).toEqual([
        [a2, note(2)],
        [a3, note(3)],
      ]);
      expect(new Set([a1, b1, a2, a3]).size).toBe(4);
    });

    it('replays nothing after the last event of a stream, and names the stream', async () => {
      const store = await create();
      await store.storeEvent('a', note(1));
      const last = await store.storeEvent('a', note(2));
      expect(await replay(store, last)).toEqual({ streamId: 'a', sent: [] });
    });

    it('knows which stream an event id belongs to, and no stream for an unknown id', async () => {
      const store = await create();
      const b = await store.storeEvent('b', note(1));
      expect(await store.getStreamIdForEventId(b)).toBe('b');
      expect(await store.getStreamIdForEventId('never-issued')).toBeUndefined();
    });

    it('replays a whole stream from its first event, in order, and nothing of a stream it does not hold', async () => {
      const store = await create();
      const a1 = await store.storeEvent('a', note(1));
      await store.storeEvent('b', note(10));
      const a2 = await store.storeEvent('a', note(2));
      const sent: [string, Message][] = [];
      const target = {
        send: async (eventId: string, message: Message) => void sent.push([eventId, message]),
      };
      await store.replayStream('a', target);
      expect(sent).toEqual([
        [a1, note(1)],
        [a2, note(2)],
      ]);
      sent.length = 0;
      await store.replayStream('never-stored', target);
      expect(sent).toEqual([]);
    });

    it('refuses to replay after an unknown event id', async () => {
      const store = await create();
      await store.storeEvent('a', note(1));
      await expect(replay(store, 'never-issued')).rejects.toThrow();
    });
  });
}
