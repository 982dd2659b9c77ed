import { describe, expect, it } from 'vitest';
import { answerAsJsonWhenAlone, FirstMessages, singleRequestId } from './answer-as-json.js';

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
const never = new Promise<undefined>(() => {});

describe('FirstMessages', () => {
  it('gives the answer when it is the first message of its request exchange', async () => {
    const firsts = new FirstMessages();
    const first = firsts.expect(7);
    firsts.sent({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' } as never, undefined);
    firsts.sent({ ...answer, id: 8 }, undefined);
    expect(firsts.sent(answer, undefined)).toBe(true);
    expect(await first).toEqual(answer);
    // Nobody waits for it any more: an answer sent again is not taken for a JSON body.
    expect(firsts.sent(answer, undefined)).toBe(false);
  });

  it('gives nothing when a notification or a request related to the request comes first', async () => {
    const firsts = new FirstMessages();
    const progressed = firsts.expect(7);
    const elicited = firsts.expect('b');
    expect(firsts.sent({ method: 'notifications/progress' }, 7)).toBe(false);
    expect(firsts.sent({ id: 0, method: 'elicitation/create' }, 'b')).toBe(false);
    // The answer follows on the stream, which the client reads: it is stored as usual.
    expect(firsts.sent(answer, undefined)).toBe(false);
    expect(await progressed).toBeUndefined();
    expect(await elicited).toBeUndefined();
  });

  it('takes an error answer as an answer, and nothing once forgotten', async () => {
    const firsts = new FirstMessages();
    const failed = { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'bad' } };
    const first = firsts.expect(7);
    firsts.sent(failed, undefined);
    expect(await first).toEqual(failed);
    let settled = false;
    void firsts.expect(9).then(() => (settled = true));
    firsts.forget(9);
    firsts.sent({ ...answer, id: 9 }, undefined);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toBe(false);
  });
});

describe('answerAsJsonWhenAlone', () => {
  it('answers a lone answer as one JSON body, keeping the session header', async () => {
    const original = sse([priming, event(answer)]);
    const response = await answerAsJsonWhenAlone(original, Promise.resolve(answer));
    // The SDK's stream is left unread (no reader taken on it).
    expect(original.body?.locked).toBe(false);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBe('s1');
    expect(await response.json()).toEqual(answer);
  });

  it('answers before the SDK has closed its stream', async () => {
    const response = await answerAsJsonWhenAlone(sse([priming], { close: false }), Promise.resolve(answer));
    expect(await response.json()).toEqual(answer);
  });

  it('streams everything, in order, when something else came first', async () => {
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } };
    const events = [priming, event(progress, 's_2'), event(answer, 's_3')];
    const original = sse(events);
    const response = await answerAsJsonWhenAlone(original, Promise.resolve(undefined));
    expect(response).toBe(original);
    expect(await response.text()).toBe(events.join(''));
  });

  it('opens the stream (priming event first) once the answer is late, then streams the answer', async () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        c.enqueue(enc.encode(priming));
      },
    });
    const slow = new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    const response = await answerAsJsonWhenAlone(slow, never, 5);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(priming);
    controller.enqueue(enc.encode(event(answer)));
    controller.close();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(event(answer));
    expect((await reader.read()).done).toBe(true);
  });

  it('leaves JSON and refused answers as they are, without waiting', async () => {
    const json = Response.json(answer);
    expect(await answerAsJsonWhenAlone(json, never)).toBe(json);
    const refused = new Response('{}', { status: 404, headers: { 'content-type': 'text/event-stream' } });
    expect(await answerAsJsonWhenAlone(refused, never)).toBe(refused);
    const accepted = new Response(null, { status: 202 });
    expect(await answerAsJsonWhenAlone(accepted, never)).toBe(accepted);
  });

  it('reads the request id of one request only', () => {
    expect(singleRequestId(call)).toBe(7);
    expect(singleRequestId({ ...call, id: 'a' })).toBe('a');
    expect(singleRequestId([call])).toBeUndefined();
    expect(singleRequestId({ jsonrpc: '2.0', method: 'x' })).toBeUndefined();
    expect(singleRequestId({ jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
  });
});
