import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { EventStore } from './event-store.js';

interface StoredEvent {
  streamId: string;
  message: JSONRPCMessage;
}

/**
 * An {@link EventStore} in this process's memory, bounded: past `maxEvents` the oldest events are
 * dropped (a client resuming from one of those gets its stream refused rather than a gap).
 */
export class InMemoryEventStore implements EventStore {
  /** Events by id, in insertion (= send) order. */
  private readonly events = new Map<string, StoredEvent>();
  private sequence = 0;

  constructor(private readonly maxEvents = 10_000) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // The stream id is in the event id: a replay finds its stream without a second index.
    const eventId = `${streamId}_${(++this.sequence).toString(36).padStart(8, '0')}`;
    this.events.set(eventId, { streamId, message });
    while (this.events.size > this.maxEvents) {
      const oldest = this.events.keys().next().value as string;
      this.events.delete(oldest);
    }
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.events.get(lastEventId);
    if (!last) throw new Error(`unknown event id: ${lastEventId}`);
    let after = false;
    for (const [eventId, event] of this.events) {
      if (eventId === lastEventId) {
        after = true;
        continue;
      }
      if (after && event.streamId === last.streamId) await send(eventId, event.message);
    }
    return last.streamId;
  }

  async replayStream(
    streamId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<void> {
    // Collected first: sending awaits, and the map may change meanwhile.
    const found: [string, JSONRPCMessage][] = [];
    for (const [eventId, event] of this.events)
      if (event.streamId === streamId) found.push([eventId, event.message]);
    for (const [eventId, message] of found) await send(eventId, message);
  }

  /** Events held (for tests). */
  get size(): number {
    return this.events.size;
  }
}
