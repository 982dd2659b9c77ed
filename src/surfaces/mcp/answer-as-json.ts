/**
 * The 2025 wire's answer to one request, as a JSON body when nothing else comes before it.
 *
 * The SDK's session transport answers every POST that carries a request on an event stream
 * (when the client accepts both media types), even when the stream will hold nothing but the
 * answer. Framing that answer as SSE costs both ends: the server writes the headers and the body
 * apart through a web stream, and the client parses an event stream instead of one JSON body.
 * The SDK's own 2026-07-28 transport does what this does (its `responseMode: 'auto'`): hold the
 * headers until the first message of the exchange; if that message is the answer, send it as
 * `application/json`; if anything else comes first (a progress notification, an elicitation or
 * sampling request) or the answer is later than {@link STREAM_AFTER_MS}, stream everything as the
 * SDK wrote it. The spec lets the server choose either for each POST.
 *
 * Which message comes first is learnt where the session's server sends it ({@link FirstMessages},
 * fed by the transport's `send`), not by reading the SDK's event stream back: decoding the SSE
 * framing and parsing the answer again cost more than the rest of the decision.
 */

/** A JSON-RPC message as the session's server sends it. */
type Message = { id?: unknown; method?: unknown };

/** The `id` of a body that is exactly one JSON-RPC request; undefined for batches and notifications. */
export function singleRequestId(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { id, method } = body as { id?: unknown; method?: unknown };
  if (typeof method !== 'string') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * The first message a session's server sends in the exchange of each awaited request: the
 * answer itself, or (undefined) something else — a notification or a request related to it.
 */
export class FirstMessages {
  private readonly waiting = new Map<string | number, (answer: Message | undefined) => void>();

  /**
   * Resolves with the answer to request `id` if it is the first message of its exchange, with
   * undefined if another message of the exchange comes first. Call {@link forget} once decided.
   */
  expect(id: string | number): Promise<Message | undefined> {
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** Stops waiting for request `id` (decided, late, or never dispatched). */
  forget(id: string | number): void {
    this.waiting.delete(id);
  }

  /**
   * Every message the session's server sends, with the request it relates to (the SDK's option).
   * True when `message` is an awaited answer that came first: it goes out as a JSON body, and the
   * event stream the SDK writes it to is dropped unread (no client can resume it).
   */
  sent(message: Message, relatedRequestId: unknown): boolean {
    if (this.waiting.size === 0) return false;
    const isAnswer = message.method === undefined && message.id !== undefined;
    const related = isAnswer ? message.id : relatedRequestId;
    if (typeof related !== 'string' && typeof related !== 'number') return false;
    const resolve = this.waiting.get(related);
    if (!resolve) return false;
    this.waiting.delete(related);
    // Resolved before the deadline's timer can fire: `answerAsJsonWhenAlone` takes this answer.
    resolve(isAnswer ? message : undefined);
    return isAnswer;
  }
}

/**
 * `response` as one JSON body holding `answer` if the answer is the first message of the exchange
 * and comes within `streamAfterMs`; otherwise `response`'s event stream unchanged.
 */
export async function answerAsJsonWhenAlone(
  response: Response,
  answer: Promise<Message | undefined>,
  streamAfterMs = STREAM_AFTER_MS,
): Promise<Response> {
  // Status and headers only: on Node, reading `body` makes the server adapter's light Response
  // build the web Response around the stream, which a JSON answer never sends.
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    return response;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), streamAfterMs);
  });
  let first: Message | undefined;
  try {
    first = await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
  // A slow call gets its stream now: the priming event lets a client that loses it resume.
  if (first === undefined) return response;
  // The SDK wrote the answer to its stream too and closes it when the exchange ends; it is left
  // unread: the SDK queues events without waiting for a reader, and drops the stream once closed.
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const session = response.headers.get('mcp-session-id');
  if (session !== null) headers['mcp-session-id'] = session;
  return new Response(JSON.stringify(first), { status: 200, headers });
}

/**
 * How long an answer may take and still come as JSON. Past it the stream opens (priming event
 * first), as the SDK would have opened it, so a long call can be resumed after a lost connection.
 */
export const STREAM_AFTER_MS = 50;
