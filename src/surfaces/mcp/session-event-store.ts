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
  /** Messages sent on a stream no client will read (see {@link unread}). */
  private readonly unreadMessages = new WeakSet<object>();

  constructor(
    private readonly store: EventStore,
    sessionId: string,
  ) {
    this.prefix = `${sessionId}/`;
  }

  /**
   * `message` is about to be written to an event stream that no client will ever read, so none
   * can resume it: it is an answer that went out as a JSON body (`answer-as-json.ts`). It is not
   * stored: kept, every such answer stayed in memory (or on Redis, one write per call) for the
   * thousands of calls after it, for nobody.
   */
  unread(message: object): void {
    this.unreadMessages.add(message);
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (this.muted) return `${this.prefix}muted`;
    if (this.unreadMessages.delete(message)) return `${this.prefix}unread`;
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
