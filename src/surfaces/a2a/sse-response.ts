import { formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import type { Logger } from '../../foundation/ports/logger.js';

export interface SseOptions<T> {
  /** The event as it goes on the wire (inside `data:`). */
  encode: (event: T) => unknown;
  /** A failure after the stream started, sent as an `event: error` frame before closing. */
  encodeError: (error: unknown) => unknown;
  headers?: Record<string, string>;
  log: Logger;
}

/** Either the open stream, or the error its first event raised (to answer as a plain error). */
export type SseOutcome = { ok: true; response: Response } | { ok: false; error: unknown };

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  // Proxies such as nginx buffer responses unless told not to, which would stall the events.
  'x-accel-buffering': 'no',
};

/**
 * Serves an event stream as Server-Sent Events. The first event is awaited before anything is
 * sent, so an early failure (unknown task, bad params) is answered as a proper error with its
 * own status rather than as a 200 stream holding one error frame. Events are pulled one at a
 * time as the client reads (backpressure); a client that goes away ends the stream.
 */
export async function sseResponse<T>(
  stream: AsyncGenerator<T, void, undefined>,
  options: SseOptions<T>,
): Promise<SseOutcome> {
  let first: IteratorResult<T, void>;
  try {
    first = await stream.next();
  } catch (error) {
    return { ok: false, error };
  }
  const encoder = new TextEncoder();
  const frame = (event: T) => encoder.encode(formatSSEEvent(options.encode(event)));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close();
      else controller.enqueue(frame(first.value));
    },
    async pull(controller) {
      try {
        const next = await stream.next();
        if (next.done) controller.close();
        else controller.enqueue(frame(next.value));
      } catch (error) {
        options.log.warn({ err: error }, 'A2A event stream failed');
        controller.enqueue(encoder.encode(formatSSEErrorEvent(options.encodeError(error))));
        controller.close();
      }
    },
    cancel() {
      // Not awaited: the generator finishes its pending step first, which may take a while.
      stream.return(undefined).catch(() => {});
    },
  });
  return {
    ok: true,
    response: new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } }),
  };
}
