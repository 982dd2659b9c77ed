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
 * sampling request, a keep-alive comment, the stream closing for polling) or the answer is later
 * than {@link STREAM_AFTER_MS}, stream everything as the SDK wrote it. The spec lets the server
 * choose either for each POST.
 */

/** The `id` of a body that is exactly one JSON-RPC request; undefined for batches and notifications. */
export function singleRequestId(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { id, method } = body as { id?: unknown; method?: unknown };
  if (typeof method !== 'string') return undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * `response` as one JSON body if its event stream's first message is the answer to `body`'s
 * request; otherwise `response`'s stream unchanged (what was read to decide is sent first).
 */
export async function answerAsJsonWhenAlone(
  response: Response,
  body: unknown,
  streamAfterMs = STREAM_AFTER_MS,
): Promise<Response> {
  const requestId = singleRequestId(body);
  if (
    requestId === undefined ||
    response.status !== 200 ||
    response.body === null ||
    !response.headers.get('content-type')?.startsWith('text/event-stream')
  ) {
    return response;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const read: Uint8Array[] = [];
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), streamAfterMs);
  });
  let next: Promise<ReadResult> | undefined;
  try {
    for (;;) {
      next ??= reader.read();
      let chunk: ReadResult | 'late';
      try {
        chunk = await Promise.race([next, late]);
      } catch {
        return streamed(response, read, undefined, undefined);
      }
      // A slow call gets its stream now: the priming event lets a client that loses it resume.
      if (chunk === 'late') return streamed(response, read, reader, next);
      next = undefined;
      if (chunk.done) return streamed(response, read, undefined, undefined);
      read.push(chunk.value);
      pending += decoder.decode(chunk.value, { stream: true });
      for (let end = pending.indexOf('\n\n'); end !== -1; end = pending.indexOf('\n\n')) {
        const data = eventData(pending.slice(0, end));
        pending = pending.slice(end + 2);
        // The priming event (an id and empty data, for resumption) says nothing to wait on.
        if (data === '') continue;
        if (data !== undefined && pending === '' && isAnswerTo(data, requestId)) {
          // The SDK closes the stream right after the answer; let it finish unread.
          drain(reader);
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          const session = response.headers.get('mcp-session-id');
          if (session !== null) headers['mcp-session-id'] = session;
          return new Response(data, { status: 200, headers });
        }
        return streamed(response, read, reader, undefined);
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

/**
 * How long an answer may take and still come as JSON. Past it the stream opens (priming event
 * first), as the SDK would have opened it, so a long call can be resumed after a lost connection.
 */
export const STREAM_AFTER_MS = 50;

/** The data of one SSE event (its `data:` lines joined); undefined for a comment or a data-less event. */
function eventData(event: string): string | undefined {
  let data: string | undefined;
  for (const line of event.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data;
}

function isAnswerTo(data: string, requestId: string | number): boolean {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return false;
  }
  if (typeof message !== 'object' || message === null) return false;
  const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
  return m.id === requestId && m.method === undefined && (m.result !== undefined || m.error !== undefined);
}

function drain(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  const next = (): void => {
    reader.read().then(
      (r) => (r.done ? undefined : next()),
      () => {},
    );
  };
  next();
}

/** The event stream of `response`: the chunks already read, then a read under way, then the rest. */
function streamed(
  response: Response,
  read: Uint8Array[],
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
  underway: Promise<ReadResult> | undefined,
): Response {
  let carried = underway;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of read) controller.enqueue(chunk);
      if (!reader) controller.close();
    },
    async pull(controller) {
      if (!reader) return;
      try {
        const { done, value } = await (carried ?? reader.read());
        carried = undefined;
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel(reason) {
      return reader?.cancel(reason);
    },
  });
  return new Response(stream, { status: response.status, headers: response.headers });
}
