import {
  CLIENT_CAPABILITIES_META_KEY,
  type Client,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/client';
import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { describe, expect, it, vi } from 'vitest';
import type { ClientChannel, RelayCapabilities } from '../../foundation/ports/client-channel.js';
import { isModern, requestWithRounds } from './modern-requests.js';

interface Sent {
  method: string;
  params: Record<string, unknown>;
}

/** A client of a 2026-07-28 server that answers each request with the next of `answers`. */
function fakeClient(answers: unknown[], version = '2026-07-28'): { client: Client; sent: Sent[] } {
  const sent: Sent[] = [];
  const client = {
    getNegotiatedProtocolVersion: () => version,
    request: vi.fn(async (request: Sent, _schema: unknown, options: { allowInputRequired?: boolean }) => {
      expect(options.allowInputRequired).toBe(true);
      sent.push(request);
      const next = answers.shift();
      if (next instanceof Error) throw next;
      return next;
    }),
  } as unknown as Client;
  return { client, sent };
}

function channel(
  capabilities: RelayCapabilities,
  answers: Record<string, unknown> = {},
): ClientChannel & {
  asked: string[];
  refusals: string[];
} {
  const asked: string[] = [];
  const refusals: string[] = [];
  const self = {
    key: 'session',
    get session() {
      return self;
    },
    capabilities: () => capabilities,
    request: async (method: string) => {
      asked.push(method);
      return answers[method];
    },
    notify: async () => {},
    onClose: () => {},
    refused: (method: string, capability: string) => void refusals.push(`${method}:${capability}`),
    asked,
    refusals,
  };
  return self;
}

const elicitRound = {
  resultType: 'input_required',
  inputRequests: { user_name: { method: 'elicitation/create', params: { message: 'Name?' } } },
  requestState: 'server-state-1',
};
const done = { content: [{ type: 'text', text: 'Hello, Alice!' }] };
const call = { method: 'tools/call', params: { name: 'greet', arguments: {} } };

describe('requestWithRounds', () => {
  it('tells the 2026-07-28 revision apart', () => {
    expect(isModern(fakeClient([]).client)).toBe(true);
    expect(isModern(fakeClient([], '2025-11-25').client)).toBe(false);
  });

  it("answers a server's round by asking the call's client, then retries with the answers and the server's state", async () => {
    const { client, sent } = fakeClient([elicitRound, done]);
    const to = channel(
      { elicitation: {} },
      { 'elicitation/create': { action: 'accept', content: { name: 'Alice' } } },
    );
    const result = await requestWithRounds(client, call, CallToolResultSchema, {}, to, 'info');
    expect(result).toEqual(done);
    expect(to.asked).toEqual(['elicitation/create']);
    expect(sent).toHaveLength(2);
    // The envelope declares what the call's client can answer, and the sessions' log level.
    expect(sent[0]?.params._meta).toEqual({
      [CLIENT_CAPABILITIES_META_KEY]: { elicitation: {} },
      [LOG_LEVEL_META_KEY]: 'info',
    });
    expect(sent[0]?.params.inputResponses).toBeUndefined();
    expect(sent[1]?.params.inputResponses).toEqual({
      user_name: { action: 'accept', content: { name: 'Alice' } },
    });
    expect(sent[1]?.params.requestState).toBe('server-state-1');
  });

  it('hands the round back as it is to a call whose client answers it itself, with its answers of the last round', async () => {
    const { client, sent } = fakeClient([elicitRound]);
    const to = {
      ...channel({ elicitation: {} }),
      direct: { inputResponses: { step: { action: 'accept' } }, requestState: 's0' },
    };
    const result = await requestWithRounds(client, call, CallToolResultSchema, {}, to, undefined);
    expect(result).toEqual(elicitRound);
    expect(sent[0]?.params.inputResponses).toEqual({ step: { action: 'accept' } });
    expect(sent[0]?.params.requestState).toBe('s0');
    expect(sent[0]?.params._meta).toEqual({ [CLIENT_CAPABILITIES_META_KEY]: { elicitation: {} } });
  });

  it('refuses to ask a client what it did not declare, and tells the channel', async () => {
    const { client } = fakeClient([elicitRound]);
    const to = channel({ sampling: {} });
    await expect(requestWithRounds(client, call, CallToolResultSchema, {}, to, undefined)).rejects.toThrow(
      /did not declare/,
    );
    expect(to.asked).toEqual([]);
    expect(to.refusals).toEqual(['elicitation/create:elicitation']);
  });

  it("tells the channel of the server's -32021 and fails with it", async () => {
    const missing = new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, 'needs sampling', {
      requiredCapabilities: { sampling: {} },
    });
    const { client } = fakeClient([missing]);
    const to = channel({});
    await expect(requestWithRounds(client, call, CallToolResultSchema, {}, to, undefined)).rejects.toBe(
      missing,
    );
    expect(to.refusals).toEqual(['tools/call:sampling']);
  });

  it('gives up on a server that never stops asking', async () => {
    const { client } = fakeClient(Array.from({ length: 40 }, () => elicitRound));
    const to = channel({ elicitation: {} }, { 'elicitation/create': { action: 'decline' } });
    await expect(requestWithRounds(client, call, CallToolResultSchema, {}, to, undefined)).rejects.toThrow(
      /more than 16 input rounds/,
    );
  });

  it("fails the call with the client's refusal of an ask, and does not retry the server", async () => {
    const { client, sent } = fakeClient([elicitRound, done]);
    const refusal = new ProtocolError(-1, 'User rejected the elicitation');
    const to = { ...channel({ elicitation: {} }), request: async () => Promise.reject(refusal) };
    await expect(requestWithRounds(client, call, CallToolResultSchema, {}, to, undefined)).rejects.toBe(
      refusal,
    );
    expect(sent).toHaveLength(1);
  });

  it('passes the call signal to the ask: a client that goes away mid-round ends the call, the server not retried', async () => {
    const { client, sent } = fakeClient([elicitRound, done]);
    const controller = new AbortController();
    const to = {
      ...channel({ elicitation: {} }),
      request: (_method: string, _params: unknown, signal?: AbortSignal) =>
        new Promise<never>((_resolve, reject) => {
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    };
    const pending = requestWithRounds(
      client,
      call,
      CallToolResultSchema,
      { signal: controller.signal },
      to,
      undefined,
    );
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    controller.abort(new Error('the client went away'));
    await expect(pending).rejects.toThrow(/the client went away/);
    expect(sent).toHaveLength(1);
  });

  it('refuses an ask with no client to put it to (a REST or A2A call)', async () => {
    const { client } = fakeClient([elicitRound]);
    await expect(
      requestWithRounds(client, call, CallToolResultSchema, {}, undefined, undefined),
    ).rejects.toThrow(/cannot answer it/);
  });
});
