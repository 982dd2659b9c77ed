import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { EventStore } from './event-store.js';

/**
 * One session's view of the gateway's {@link EventStore}. The SDK transport names a session's
 * standalone stream `_GET_stream` in every session, so in a store shared by sessions (or replicas)
 * the stream ids are qualified with the session id here: a client can resume only its own
 * session's streams, and an event id of another session is unknown to it. While `muted` (a session
 * being rebuilt answers its synthetic handshake) nothing is stored.
 */
export class SessionEventStore implements EventStore {
  muted = false;
  private readonly prefix: string;

  constructor(
    private readonly store: EventStore,
    sessionId: string,
  ) {
    this.prefix = `${sessionId}/`;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (this.muted) return `${this.prefix}muted`;
    return this.store.storeEvent(this.prefix + streamId, message);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const streamId = await this.store.getStreamIdForEventId(eventId);
    return streamId?.startsWith(this.prefix) ? streamId.slice(this.prefix.length) : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    target: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    // Checked first: another session's event id must not replay anything, not even to refuse.
    if ((await this.getStreamIdForEventId(lastEventId)) === undefined)
      throw new Error(`unknown event id: ${lastEventId}`);
    const streamId = await this.store.replayEventsAfter(lastEventId, target);
    return streamId.slice(this.prefix.length);
  }
}
