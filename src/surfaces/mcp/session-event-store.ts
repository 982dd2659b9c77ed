import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { EventStore } from './event-store.js';

/** The SDK transport's id of a session's standalone (`GET`) stream, the same in every session. */
const STANDALONE_STREAM = '_GET_stream';

/** Ends the id of a request stream's opening event, which names the stream and is not stored. */
const STREAM_START = '#start';

/**
 * One session's view of the gateway's {@link EventStore}. The SDK transport names a session's
 * standalone stream `_GET_stream` in every session, so in a store shared by sessions (or replicas)
 * the stream ids are qualified with the session id here: a client can resume only its own
 * session's streams, and an event id of another session is unknown to it. While `muted` (a session
 * being rebuilt answers its synthetic handshake) nothing is stored.
 *
 * The SDK opens every stream with an empty priming event (the id a resume can start from) and
 * stores it first. A request's stream is new with each `POST`, so its priming event's id can stand
 * for "the start of this stream" without being stored: resuming from it replays the whole stream.
 * Stored, it was one write per call — one Redis round trip, one key for the session's lifetime, or
 * one of the in-memory store's 10,000 places, which under load pushed out within seconds the events
 * a client could still resume — for the calls answered as JSON, whose stream no client ever sees.
 * The standalone stream is opened again by each `GET`, so its priming events are stored as before.
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
    if (streamId !== STANDALONE_STREAM && isEmpty(message)) return this.prefix + streamId + STREAM_START;
    return this.store.storeEvent(this.prefix + streamId, message);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const started = this.startedStream(eventId);
    if (started !== undefined) return started;
    const streamId = await this.store.getStreamIdForEventId(eventId);
    return streamId?.startsWith(this.prefix) ? streamId.slice(this.prefix.length) : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    target: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const started = this.startedStream(lastEventId);
    if (started !== undefined) {
      await this.store.replayStream(this.prefix + started, target);
      return started;
    }
    // Checked first: another session's event id must not replay anything, not even to refuse.
    if ((await this.getStreamIdForEventId(lastEventId)) === undefined)
      throw new Error(`unknown event id: ${lastEventId}`);
    const streamId = await this.store.replayEventsAfter(lastEventId, target);
    return streamId.slice(this.prefix.length);
  }

  async replayStream(
    streamId: string,
    target: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<void> {
    await this.store.replayStream(this.prefix + streamId, target);
  }

  /** The request stream a priming event id of this session names; undefined for any other id. */
  private startedStream(eventId: string): string | undefined {
    if (!eventId.startsWith(this.prefix) || !eventId.endsWith(STREAM_START)) return undefined;
    const streamId = eventId.slice(this.prefix.length, -STREAM_START.length);
    return streamId === '' || streamId === STANDALONE_STREAM ? undefined : streamId;
  }
}

/** Whether `message` has no keys: the SDK's priming event (every JSON-RPC message has `jsonrpc`). */
function isEmpty(message: object): boolean {
  for (const _ in message) return false;
  return true;
}
