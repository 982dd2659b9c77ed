import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { type Part, type StreamResponse, type Task, TaskState } from '@a2a-js/sdk';
import { type Client, ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { defineTool } from '../../src/sources/local/define-tool.js';
import { localEntries } from '../../src/sources/local/local-source.js';
import { A2A_CARD_PATH, createA2aSurface } from '../../src/surfaces/a2a/a2a-surface.js';
import { buildAgentCard, SKILL_PER_TOOL_LIMIT } from '../../src/surfaces/a2a/agent-card.js';
import { dataPart, sendRequest, textPart } from '../support/a2a-messages.js';
import { gatewayFrom } from '../support/in-process-gateway.js';
import { surfaceContext } from '../support/surface-context.js';
import { makeTool } from '../support/test-tools.js';

/** What the slow test tool saw: whether its signal fired. */
const slow = { started: 0, aborted: 0 };

let gateway: Gateway;
let url: string;
let stop: () => Promise<void>;
let client: Client;

beforeAll(async () => {
  gateway = await gatewayFrom();
  const sleep = defineTool<{ ms: number }>({
    namespace: 'test',
    name: 'sleep',
    description: 'Waits for ms milliseconds, then answers; stops early when cancelled.',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } }, required: ['ms'] },
    handler: (args, ctx) =>
      new Promise((resolve, reject) => {
        slow.started++;
        ctx.progress({ progress: 0, total: 1, message: 'sleeping' });
        const timer = setTimeout(() => resolve({ slept: args.ms }), args.ms);
        ctx.signal.addEventListener('abort', () => {
          slow.aborted++;
          clearTimeout(timer);
          reject(ctx.signal.reason);
        });
      }),
  });
  // Answers with the surface its caller's context names (what the console's activity log shows).
  const whichSurface = defineTool<Record<string, never>>({
    namespace: 'test',
    name: 'surface',
    description: 'Says which surface the call came in through.',
    inputSchema: { type: 'object' },
    handler: (_args, ctx) => ({ surface: ctx.caller?.surface ?? 'none' }),
  });
  const [sleepEntry, surfaceEntry] = localEntries('test', 'local', [sleep, whichSurface]);
  gateway.catalog.upsert('test', sleepEntry!);
  gateway.catalog.upsert('test', surfaceEntry!);
  gateway.catalog.flush();

  const surface = createA2aSurface(
    surfaceContext(gateway.scope, {
      resolveScope: gateway.toolsets.resolve,
      baseUrl: () => url,
      info: { name: 'aperture-test', version: '9.9.9' },
    }),
  );
  const app = new Hono();
  app.route('/', surface.app);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stop = async () => {
    await surface.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
    await gateway.close();
  };
  client = await new ClientFactory().createFromUrl(url);
});

afterAll(async () => {
  await stop?.();
});

async function sendForTask(c: Client, parts: Part[], returnImmediately = false): Promise<Task> {
  const result = await c.sendMessage(sendRequest(parts, returnImmediately));
  if ('messageId' in result) throw new Error('expected a task, got a message');
  return result;
}

function dataValues(parts: readonly Part[] | undefined): unknown[] {
  return (parts ?? []).flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []));
}

function texts(parts: readonly Part[] | undefined): string[] {
  return (parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []));
}

/** The `{ error }` a failed task's status message carries. */
function errorOf(task: Task): { code: string; message: string } {
  const data = dataValues(task.status?.message?.parts)[0] as { error: { code: string; message: string } };
  return data.error;
}

describe('A2A server surface', () => {
  it('serves a v1.0 agent card with one skill per tool, and a v0.3 view to clients without A2A-Version', async () => {
    const card = await client.getAgentCard();
    expect(card.name).toBe('aperture-test');
    expect(card.version).toBe('9.9.9');
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.supportedInterfaces).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }),
        expect.objectContaining({ url: `${url}/a2a`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' }),
        expect.objectContaining({ url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' }),
      ]),
    );
    const ids = card.skills.map((s) => s.id);
    expect(ids).toEqual(expect.arrayContaining(['time:now', 'plantuml:encode', 'test:sleep']));
    expect(card.skills.find((s) => s.id === 'time:now')?.examples.at(-1)).toContain('"tool_id":"time:now"');

    const legacy = (await (await fetch(`${url}${A2A_CARD_PATH}`)).json()) as Record<string, unknown>;
    expect(legacy).toMatchObject({
      url: `${url}/a2a`,
      preferredTransport: 'JSONRPC',
      protocolVersion: '0.3.0',
    });
    expect((legacy.skills as unknown[]).length).toBe(card.skills.length);
  });

  it('advertises one skill per namespace when the catalog has more than the per-tool limit', () => {
    const tools = Array.from({ length: SKILL_PER_TOOL_LIMIT + 1 }, (_, i) =>
      makeTool(`ns${i % 3}:tool${i}`, { description: `Tool number ${i}` }),
    );
    const card = buildAgentCard({ tools, endpointUrl: 'http://x/a2a', info: { name: 'n', version: '1' } });
    expect(card.skills.map((s) => s.id)).toEqual(['ns0', 'ns1', 'ns2']);
    expect(card.skills[0]?.description).toContain('ns0:tool0');
  });

  it('runs time:now from a data part; the artifact holds the structured result and its text', async () => {
    const task = await sendForTask(client, [dataPart({ tool_id: 'time:now', args: { timezone: 'UTC' } })]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const parts = task.artifacts[0]?.parts;
    const result = dataValues(parts)[0] as { iso: string; timezone: string };
    expect(result.timezone).toBe('UTC');
    expect(Date.parse(result.iso)).not.toBeNaN();
    expect(texts(parts)[0]).toContain(result.iso);

    const fetched = await client.getTask({ tenant: '', id: task.id });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(fetched.artifacts).toHaveLength(1);
  });

  it('ends a call with invalid arguments with the validation_input code and its table state', async () => {
    const task = await sendForTask(client, [dataPart({ tool_id: 'plantuml:encode', args: { source: '' } })]);
    // ERROR_CODE_TABLE.validation_input.a2aState is 'rejected': the caller's fault, not a failure.
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(errorOf(task).code).toBe('validation_input');
    expect(texts(task.status?.message?.parts)[0]).toContain('plantuml:encode');
  });

  it("marks the tool call's context as the A2A surface's", async () => {
    const task = await sendForTask(client, [dataPart({ tool_id: 'test:surface', args: {} })]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(dataValues(task.artifacts[0]?.parts)[0]).toEqual({ surface: 'a2a' });
  });

  it('reports an unknown tool as tool_not_found', async () => {
    const task = await sendForTask(client, [dataPart({ tool_id: 'nope:missing', args: {} })]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(errorOf(task)).toMatchObject({ code: 'tool_not_found' });
  });

  it('answers a request in words with matching tools', async () => {
    const task = await sendForTask(client, [textPart('what time is it now in Tokyo')]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const parts = task.artifacts[0]?.parts;
    const { tools } = dataValues(parts)[0] as { tools: { id: string; description: string }[] };
    expect(tools.map((t) => t.id)).toContain('time:now');
    expect(texts(parts)[0]).toContain('time:now');
  });

  it('rejects a message with no usable part, saying what to send', async () => {
    const file: Part = {
      content: { $case: 'url', value: 'https://example.com/a.png' },
      metadata: undefined,
      filename: 'a.png',
      mediaType: 'image/png',
    };
    for (const parts of [[file], [dataPart({ hello: 'world' })]]) {
      const task = await sendForTask(client, parts);
      expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
      expect(errorOf(task).code).toBe('invalid_request');
      expect(errorOf(task).message).toContain('tool_id');
    }
  });

  it('cancels a slow call: the tool sees its signal abort and the task ends canceled', async () => {
    const before = { ...slow };
    const task = await sendForTask(client, [dataPart({ tool_id: 'test:sleep', args: { ms: 30_000 } })], true);
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
    for (let i = 0; i < 100 && slow.started === before.started; i++)
      await new Promise((r) => setTimeout(r, 10));

    const started = Date.now();
    const canceled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(slow.aborted).toBe(before.aborted + 1);
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    await expect(client.cancelTask({ tenant: '', id: randomUUID(), metadata: undefined })).rejects.toThrow(
      /not found/i,
    );
  });

  it('streams submitted → working (with progress) → artifact → completed', async () => {
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(
      sendRequest([dataPart({ tool_id: 'test:sleep', args: { ms: 50 } })]),
    )) {
      events.push(event);
    }
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe('task');
    expect(kinds).toContain('artifactUpdate');
    const states = events.flatMap((e) =>
      e.payload?.$case === 'statusUpdate' ? [e.payload.value.status?.state] : [],
    );
    expect(states[0]).toBe(TaskState.TASK_STATE_WORKING);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const progress = events.find(
      (e) =>
        e.payload?.$case === 'statusUpdate' &&
        texts(e.payload.value.status?.message?.parts)[0]?.includes('sleeping'),
    );
    expect(progress).toBeDefined();
  });

  it('serves the same tasks over HTTP+JSON', async () => {
    const rest = await new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ['HTTP+JSON'] }),
    ).createFromUrl(url);
    expect(rest.transport.protocolName).toBe('HTTP+JSON');
    const task = await sendForTask(rest, [dataPart({ tool_id: 'time:now', args: {} })]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((dataValues(task.artifacts[0]?.parts)[0] as { timezone: string }).timezone).toBe('UTC');
    expect((await rest.getTask({ tenant: '', id: task.id })).id).toBe(task.id);

    const kinds: (string | undefined)[] = [];
    for await (const event of rest.sendMessageStream(sendRequest([dataPart({ tool_id: 'nope:x' })]))) {
      kinds.push(event.payload?.$case);
    }
    expect(kinds[0]).toBe('task');
    await expect(rest.getTask({ tenant: '', id: 'missing' })).rejects.toThrow(/not found/i);
  });

  it('serves v0.3 JSON-RPC clients (message/send, tasks/get) through the compat layer', async () => {
    const rpc = async (method: string, params: unknown) => {
      const response = await fetch(`${url}/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
      });
      return (await response.json()) as {
        id: number;
        result?: Record<string, unknown>;
        error?: { code: number };
      };
    };
    const sent = await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { tool_id: 'time:now', args: { timezone: 'Asia/Tokyo' } } }],
      },
    });
    expect(sent.id).toBe(7);
    const task = sent.result as {
      kind: string;
      id: string;
      status: { state: string };
      artifacts: { parts: { kind: string; data?: { timezone: string } }[] }[];
    };
    expect(task.kind).toBe('task');
    expect(task.status.state).toBe('completed');
    expect(task.artifacts[0]?.parts[0]).toMatchObject({ kind: 'data', data: { timezone: 'Asia/Tokyo' } });

    const got = await rpc('tasks/get', { id: task.id });
    expect(got.result).toMatchObject({ id: task.id, status: { state: 'completed' } });

    const failed = await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { tool_id: 'x:y' } }],
      },
    });
    expect(failed.result).toMatchObject({
      status: { state: 'rejected', message: { parts: expect.any(Array) } },
    });
    expect((await rpc('tasks/get', { id: 'missing' })).error?.code).toBe(-32001);
  });

  it('answers malformed JSON-RPC traffic with protocol errors', async () => {
    const post = (body: string, contentType = 'application/json') =>
      fetch(`${url}/a2a`, { method: 'POST', headers: { 'content-type': contentType }, body });
    const parse = await post('{not json');
    expect(parse.status).toBe(400);
    expect(((await parse.json()) as { error: { code: number } }).error.code).toBe(-32700);
    expect((await post('{}', 'text/plain')).status).toBe(415);
    const unknown = (await (
      await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'Nope', params: {} }))
    ).json()) as {
      error: { code: number };
    };
    expect(unknown.error.code).toBe(-32601);
    expect((await fetch(`${url}/a2a`)).status).toBe(405);
  });
});
