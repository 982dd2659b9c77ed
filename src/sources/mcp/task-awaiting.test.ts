import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { TASKS_EXTENSION } from './downstream-tasks.js';
import { awaitTask, offersTasks, takesTasks } from './task-awaiting.js';

type Sent = { method: string; params: Record<string, unknown> };

/** A server's side of one task: the states `tasks/get` answers in turn (the last one repeats). */
function fakeClient(states: Record<string, unknown>[], extensions?: Record<string, unknown>) {
  const sent: Sent[] = [];
  let polls = 0;
  const client = {
    getServerCapabilities: () => (extensions ? { extensions } : {}),
    request: async (request: Sent) => {
      sent.push(request);
      if (request.method === 'tasks/get') {
        const state = states[Math.min(polls++, states.length - 1)];
        return { taskId: request.params.taskId, ...state };
      }
      return {};
    },
  };
  return { client: client as unknown as Client, sent };
}

function channel(capabilities: Record<string, unknown>, answer?: (method: string) => unknown): ClientChannel {
  return {
    key: 'test',
    session: undefined,
    capabilities: () => capabilities,
    request: async (method: string) => answer?.(method),
    notify: async () => {},
    onClose: () => () => {},
  } as unknown as ClientChannel;
}

const working = { taskId: 's-1', status: 'working', pollIntervalMs: 0 };
const never = new AbortController().signal;

describe('awaitTask', () => {
  it("polls until the task completes and answers the server's result", async () => {
    const result = { content: [{ type: 'text', text: 'done' }], isError: false };
    const { client, sent } = fakeClient([
      { status: 'working' },
      { status: 'working' },
      { status: 'completed', result },
    ]);
    expect(await awaitTask(client, working, never, undefined)).toEqual(result);
    expect(sent.map((s) => s.method)).toEqual(['tasks/get', 'tasks/get', 'tasks/get']);
    expect(sent.every((s) => s.params.taskId === 's-1')).toBe(true);
  });

  it('keeps a tool error of a completed task as the result (isError), not a failure', async () => {
    const result = { content: [{ type: 'text', text: 'bad input' }], isError: true };
    const { client } = fakeClient([{ status: 'completed', result }]);
    expect(await awaitTask(client, working, never, undefined)).toEqual(result);
  });

  it("throws a failed task's JSON-RPC error as the server's", async () => {
    const { client } = fakeClient([{ status: 'failed', error: { code: -32000, message: 'rate limited' } }]);
    const failure = await awaitTask(client, working, never, undefined).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProtocolError);
    expect((failure as ProtocolError).code).toBe(-32000);
    expect((failure as Error).message).toContain('rate limited');
  });

  it('fails when the server cancels the task, or says completed without a result', async () => {
    const cancelled = fakeClient([{ status: 'cancelled', statusMessage: 'shutting down' }]);
    await expect(awaitTask(cancelled.client, working, never, undefined)).rejects.toThrow(
      /cancelled task s-1: shutting down/,
    );
    const empty = fakeClient([{ status: 'completed' }]);
    await expect(awaitTask(empty.client, working, never, undefined)).rejects.toThrow(/without a result/);
  });

  it("asks the caller's client the task's input requests once, and sends the answers with tasks/update", async () => {
    const asks = {
      name: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: {} } },
    };
    const result = { content: [{ type: 'text', text: 'hello Ada' }] };
    const { client, sent } = fakeClient([
      { status: 'input_required', inputRequests: asks },
      // The server has not taken the answer in yet: the same key again is not asked twice.
      { status: 'input_required', inputRequests: asks },
      { status: 'completed', result },
    ]);
    const asked: string[] = [];
    const caller = channel({ elicitation: {} }, (method) => {
      asked.push(method);
      return { action: 'accept', content: { name: 'Ada' } };
    });
    expect(await awaitTask(client, working, never, caller)).toEqual(result);
    expect(asked).toEqual(['elicitation/create']);
    const updates = sent.filter((s) => s.method === 'tasks/update');
    expect(updates).toHaveLength(1);
    expect(updates[0]?.params).toMatchObject({
      taskId: 's-1',
      inputResponses: { name: { action: 'accept', content: { name: 'Ada' } } },
    });
  });

  it('fails an input request the caller cannot answer, without sending tasks/update', async () => {
    const asks = { q: { method: 'sampling/createMessage', params: {} } };
    const { client, sent } = fakeClient([{ status: 'input_required', inputRequests: asks }]);
    await expect(awaitTask(client, working, never, channel({}))).rejects.toThrow(/did not declare/);
    expect(sent.some((s) => s.method === 'tasks/update')).toBe(false);
  });

  it('cancels the task at the server when the call is aborted, and rejects with the reason', async () => {
    const { client, sent } = fakeClient([{ status: 'working', pollIntervalMs: 20 }]);
    const abort = new AbortController();
    const waiting = awaitTask(client, { ...working, pollIntervalMs: 20 }, abort.signal, undefined);
    await new Promise((resolve) => setTimeout(resolve, 60));
    abort.abort(new Error('client went away'));
    await expect(waiting).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sent.filter((s) => s.method === 'tasks/cancel')).toEqual([
      { method: 'tasks/cancel', params: { taskId: 's-1' } },
    ]);
  });
});

describe('who takes and who offers tasks', () => {
  it('reads the extension from the caller and from the server', () => {
    expect(takesTasks(undefined)).toBe(false);
    expect(takesTasks(channel({ elicitation: {} }))).toBe(false);
    expect(takesTasks(channel({ extensions: { [TASKS_EXTENSION]: {} } }))).toBe(true);
    expect(offersTasks(fakeClient([]).client)).toBe(false);
    expect(offersTasks(fakeClient([], { [TASKS_EXTENSION]: {} }).client)).toBe(true);
  });
});
