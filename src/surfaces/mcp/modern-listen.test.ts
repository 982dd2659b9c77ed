import { describe, expect, it } from 'vitest';
import type { OpenedExtras } from './listen-extras.js';
import { listenRequestOf, tasksNotDeclared, weaveListenStream } from './modern-listen.js';

const TASKS = 'io.modelcontextprotocol/tasks';
const SUB = 'io.modelcontextprotocol/subscriptionId';

function listenBody(notifications: unknown, declare = false, id: string | number = 'L1') {
  return {
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      notifications,
      _meta: { 'io.modelcontextprotocol/clientCapabilities': declare ? { extensions: { [TASKS]: {} } } : {} },
    },
  };
}

/** An SDK-like listen stream: each string is written as it comes, then the stream stays open (or ends). */
function sdkStream(frames: string[], end = false): { response: Response; cancelled: () => boolean } {
  let cancelled = false;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const frame of frames) controller.enqueue(encoder.encode(frame));
      if (end) controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return {
    response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    cancelled: () => cancelled,
  };
}

const event = (message: unknown) =>
  `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...(message as object) })}\n\n`;
const ackFrame = (id: string | number) =>
  event({
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { toolsListChanged: true }, _meta: { [SUB]: id } },
  });

/** Reads `response` until `count` messages came (keep-alives skipped) or it ended. */
async function read(response: Response, count: number): Promise<Record<string, unknown>[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const out: Record<string, unknown>[] = [];
  let text = '';
  while (out.length < count) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    let cut = text.indexOf('\n\n');
    while (cut >= 0) {
      const data = /^data: (.*)$/m.exec(text.slice(0, cut))?.[1];
      if (data) out.push(JSON.parse(data) as Record<string, unknown>);
      text = text.slice(cut + 2);
      cut = text.indexOf('\n\n');
    }
  }
  await reader.cancel();
  return out;
}

function extras(honored: OpenedExtras['honored']): OpenedExtras & { closed: () => number } {
  let closed = 0;
  return { honored, close: () => void closed++, closed: () => closed };
}

describe('listenRequestOf', () => {
  it('reads the filter, the Tasks declaration, and hands the SDK a filter of tool changes only', () => {
    const request = listenRequestOf(
      listenBody({ taskIds: ['task-1'], resourceSubscriptions: ['a://b'], promptsListChanged: true }, true),
    );
    expect(request).toMatchObject({
      id: 'L1',
      filter: { taskIds: ['task-1'], resourceSubscriptions: ['a://b'], promptsListChanged: true },
      declaresTasks: true,
    });
    expect(request?.sdkBody).toMatchObject({ params: { notifications: { toolsListChanged: true } } });
    expect(request?.sdkBody).not.toHaveProperty(['params', 'notifications', 'taskIds']);
    // False flags are not asks.
    expect(listenRequestOf(listenBody({ toolsListChanged: false }))?.filter).toEqual({});
  });

  it('leaves anything else, or a malformed filter, to the SDK', () => {
    expect(listenRequestOf({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(listenRequestOf([listenBody({})])).toBeUndefined();
    expect(listenRequestOf(listenBody(undefined))).toBeUndefined();
    expect(listenRequestOf(listenBody({ taskIds: 'task-1' }))).toBeUndefined();
    expect(listenRequestOf(listenBody({ taskIds: [1] }))).toBeUndefined();
    expect(listenRequestOf(listenBody({ toolsListChanged: 'yes' }))).toBeUndefined();
    expect(listenRequestOf({ ...listenBody({}), id: null })).toBeUndefined();
  });

  it('answers task ids without the extension with -32021, naming it', async () => {
    const response = tasksNotDeclared('L1');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 'L1',
      error: {
        code: -32021,
        message: 'Missing required client capability',
        data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
      },
    });
  });
});

describe('weaveListenStream', () => {
  it('acknowledges the whole honoured filter, then the queued and later notifications, stamped', async () => {
    const request = listenRequestOf(
      listenBody({ taskIds: ['t1'], toolsListChanged: true }, true),
    ) as NonNullable<ReturnType<typeof listenRequestOf>>;
    const { response } = sdkStream([
      ackFrame('L1'),
      ': keepalive\n\n',
      event({ method: 'notifications/tools/list_changed' }),
    ]);
    let write: ((method: string, params: Record<string, unknown>) => void) | undefined;
    const opened = extras({ taskIds: ['t1'] });
    const woven = weaveListenStream(response, {
      request,
      extras: opened,
      queued: [{ method: 'notifications/tasks', params: { taskId: 't1', status: 'working' } }],
      attach: (w) => {
        write = w;
      },
      serverInfo: { name: 'gw', version: '1' },
    });
    const reading = read(woven, 4);
    await new Promise((resolve) => setTimeout(resolve, 20));
    write?.('notifications/tasks', { taskId: 't1', status: 'completed', _meta: { keep: 1 } });
    const messages = await reading;
    expect(messages[0]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { toolsListChanged: true, taskIds: ['t1'] }, _meta: { [SUB]: 'L1' } },
    });
    expect(messages[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { taskId: 't1', status: 'working', _meta: { [SUB]: 'L1' } },
    });
    expect(messages[2]).toMatchObject({ method: 'notifications/tools/list_changed' });
    expect(messages[3]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { taskId: 't1', status: 'completed', _meta: { keep: 1, [SUB]: 'L1' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(opened.closed()).toBe(1);
  });

  it("drops the tool changes the client did not ask for (the SDK's carrier filter)", async () => {
    const request = listenRequestOf(listenBody({ promptsListChanged: true })) as NonNullable<
      ReturnType<typeof listenRequestOf>
    >;
    const { response } = sdkStream(
      [ackFrame(7), event({ method: 'notifications/tools/list_changed' }), event({ method: 'x/other' })],
      true,
    );
    const woven = weaveListenStream(response, {
      request,
      extras: extras({ promptsListChanged: true }),
      queued: [],
      attach: () => {},
      serverInfo: { name: 'gw', version: '1' },
    });
    const messages = await read(woven, 10);
    expect(messages.map((m) => m.method)).toEqual(['notifications/subscriptions/acknowledged', 'x/other']);
    expect(messages[0]).toHaveProperty(['params', 'notifications'], { promptsListChanged: true });
  });

  it('ends gracefully after the acknowledgement when nothing is honoured, and closes the extras', async () => {
    const request = listenRequestOf(listenBody({ taskIds: ['gone'] }, true, 9)) as NonNullable<
      ReturnType<typeof listenRequestOf>
    >;
    const sdk = sdkStream([ackFrame(9)]);
    const opened = extras({});
    const woven = weaveListenStream(sdk.response, {
      request,
      extras: opened,
      queued: [],
      attach: () => {},
      serverInfo: { name: 'gw', version: '1' },
    });
    const messages = await read(woven, 10);
    expect(messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: {}, _meta: { [SUB]: 9 } },
      },
      {
        jsonrpc: '2.0',
        id: 9,
        result: {
          resultType: 'complete',
          _meta: { [SUB]: 9, 'io.modelcontextprotocol/serverInfo': { name: 'gw', version: '1' } },
        },
      },
    ]);
    expect(opened.closed()).toBe(1);
    expect(sdk.cancelled()).toBe(true);
  });

  it("closes the extras and the SDK's stream when the client goes away", async () => {
    const request = listenRequestOf(listenBody({ taskIds: ['t'] }, true)) as NonNullable<
      ReturnType<typeof listenRequestOf>
    >;
    const sdk = sdkStream([ackFrame('L1')]);
    const opened = extras({ taskIds: ['t'] });
    const woven = weaveListenStream(sdk.response, {
      request,
      extras: opened,
      queued: [],
      attach: () => {},
      serverInfo: { name: 'gw', version: '1' },
    });
    expect(await read(woven, 1)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(opened.closed()).toBe(1);
    expect(sdk.cancelled()).toBe(true);
  });
});
