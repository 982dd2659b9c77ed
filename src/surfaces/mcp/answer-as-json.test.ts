import { describe, expect, it } from 'vitest';
import { answerAsJsonWhenAlone, singleRequestId } from './answer-as-json.js';

const enc = new TextEncoder();

/** An SSE response whose stream yields `events` (one chunk each) and then, if `close`, ends. */
function sse(events: string[], { close = true } = {}): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const e of events) controller.enqueue(enc.encode(e));
      if (close) controller.close();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'mcp-session-id': 's1' },
  });
}

const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo' } };
const answer = { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'hi' }] } };
const priming = 'id: s_1\ndata: \n\n';
const event = (m: unknown, id = 's_2') => `event: message\nid: ${id}\ndata: ${JSON.stringify(m)}\n\n`;

describe('answerAsJsonWhenAlone', () => {
  it('answers a lone answer (after the priming event) as one JSON body, keeping the session header', async () => {
    const response = await answerAsJsonWhenAlone(sse([priming, event(answer)]), call);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBe('s1');
    expect(await response.json()).toEqual(answer);
  });

  it('answers an error response as JSON too, and before the SDK has closed the stream', async () => {
    const failed = { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'bad' } };
    const response = await answerAsJsonWhenAlone(sse([event(failed)], { close: false }), call);
    expect(await response.json()).toEqual(failed);
  });

  it('streams everything, in order, when a notification comes before the answer', async () => {
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } };
    const events = [priming, event(progress, 's_2'), event(answer, 's_3')];
    const response = await answerAsJsonWhenAlone(sse(events), call);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('mcp-session-id')).toBe('s1');
    expect(await response.text()).toBe(events.join(''));
  });

  it('streams a server-to-client request (elicitation) that comes first', async () => {
    const elicit = { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: {} };
    const events = [event(elicit), event(answer)];
    const response = await answerAsJsonWhenAlone(sse(events), call);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(events.join(''));
  });

  it('streams a keep-alive comment, and a stream closed before any answer (polling)', async () => {
    const keepAlive = await answerAsJsonWhenAlone(sse([': keepalive\n\n', event(answer)]), call);
    expect(await keepAlive.text()).toBe(`: keepalive\n\n${event(answer)}`);
    const closed = await answerAsJsonWhenAlone(sse([priming]), call);
    expect(closed.headers.get('content-type')).toBe('text/event-stream');
    expect(await closed.text()).toBe(priming);
  });

  it('reassembles an event split across chunks, and does not take an answer to another id', async () => {
    const whole = event(answer);
    const split = await answerAsJsonWhenAlone(sse([whole.slice(0, 10), whole.slice(10)]), call);
    expect(await split.json()).toEqual(answer);
    const other = event({ ...answer, id: 8 });
    const wrong = await answerAsJsonWhenAlone(sse([other]), call);
    expect(await wrong.text()).toBe(other);
  });

  it('leaves batches, notifications, JSON and refused answers as they are', async () => {
    for (const body of [[call], { jsonrpc: '2.0', method: 'notifications/initialized' }]) {
      const original = sse([event(answer)]);
      expect(await answerAsJsonWhenAlone(original, body)).toBe(original);
    }
    const json = Response.json(answer);
    expect(await answerAsJsonWhenAlone(json, call)).toBe(json);
    const refused = new Response('{}', { status: 404, headers: { 'content-type': 'text/event-stream' } });
    expect(await answerAsJsonWhenAlone(refused, call)).toBe(refused);
  });

  it('reads the request id of one request only', () => {
    expect(singleRequestId(call)).toBe(7);
    expect(singleRequestId({ ...call, id: 'a' })).toBe('a');
    expect(singleRequestId([call])).toBeUndefined();
    expect(singleRequestId({ jsonrpc: '2.0', method: 'x' })).toBeUndefined();
    expect(singleRequestId({ jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
  });
});

describe('answerAsJsonWhenAlone with a slow answer', () => {
  it('opens the stream (priming event first) once the answer is late, then streams the answer', async () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        c.enqueue(enc.encode(priming));
      },
    });
    const slow = new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const response = await answerAsJsonWhenAlone(slow, call, 5);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(priming);
    controller.enqueue(enc.encode(event(answer)));
    controller.close();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(event(answer));
    expect((await reader.read()).done).toBe(true);
  });
});
