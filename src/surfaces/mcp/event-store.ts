import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * Where the events of the MCP Streamable HTTP streams are kept so that a client that lost a
 * stream can resume it (`Last-Event-ID`): each message sent on a stream is stored under an id that
 * names the stream, and replaying after an id sends that stream's later messages again, in order.
 * The in-memory implementation serves one process; a shared one lets another process resume.
 * (The shape is the SDK transport's `eventStore` option.)
 */
export interface EventStore {
  /** Stores `message` as sent on `streamId`; returns the new event's id. */
  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string>;
  /** The stream an event id belongs to; undefined for an id the store does not know (any more). */
  getStreamIdForEventId(eventId: string): Promise<string | undefined>;
  /**
   * Sends the events of `lastEventId`'s stream stored after it, in order, and returns the stream's
   * id. Throws for an id the store does not know (any more).
   */
  replayEventsAfter(
    lastEventId: string,
    target: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string>;
  /**
   * Sends every event stored on `streamId`, from its first, in order: a resume from the start of
   * a stream whose opening event was not stored (`SessionEventStore`). Sends nothing for a stream
   * it holds no event of.
   */
  replayStream(
    streamId: string,
    target: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<void>;
}
