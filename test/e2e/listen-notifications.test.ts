import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListeningFixture } from '../support/listening-fixture.js';
import { mcpPost } from '../support/mcp-post.js';
import { modernEnvelope, modernHeaders, modernRequest } from '../support/modern-request.js';
import { ROOT, type RunningGateway, startReadyGateway, stopProcess } from './gateway-process.js';

/**
 * What a 2026-07-28 client hears on `subscriptions/listen` through the gateway beyond the catalog's
 * tool changes: the status of its tasks (`taskIds`, the Tasks extension's `notifications/tasks`),
 * updates of the downstream resources it named (`resourceSubscriptions`) and the downstream prompt
 * list's changes — each acknowledged only when honoured. Behind `aperture serve` (metatools): a
 * 2026-07-28 server of the SDK v2 with a task tool, a subscribable resource and a prompt
 * (test/fixtures/tasks/task-server.mjs).
 */

const FIXTURE = path.join(ROOT, 'test/fixtures/tasks/task-server.mjs');
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

type Message = {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: { code: number };
};

const envelope = (declareTasks: boolean) => modernEnvelope({ declareTasks, client: 'listen-e2e' });

/** One 2026-07-28 request as the wire carries it (the SDK client refuses a task answer). */
async function modern(base: string, method: string, params: Record<string, unknown>): Promise<Message> {
  return (await modernRequest(base, method, params, { client: 'listen-e2e' })) as Message;
}

/** An open listen stream: the messages read so far, and a wait for the next one that matches. */
interface Listening {
  status: number;
  messages: Message[];
  next(match: (m: Message) => boolean, timeoutMs?: number): Promise<Message>;
  /** Resolves once the server ended the stream. */
  ended: Promise<void>;
  close(): void;
}

async function listen(
  base: string,
  notifications: Record<string, unknown>,
  declareTasks = true,
  id: string | number = 'sub-1',
): Promise<Listening> {
  const abort = new AbortController();
  const response = await fetch(`${base}/mcp`, {
    ...mcpPost(
      {
        jsonrpc: '2.0',
        id,
        method: 'subscriptions/listen',
        params: { notifications, _meta: envelope(declareTasks) },
      },
      modernHeaders('subscriptions/listen', notifications),
    ),
    signal: abort.signal,
  });
  const messages: Message[] = [];
  const waiters = new Set<() => void>();
  let ended: Promise<void> = Promise.resolve();
  if (response.headers.get('content-type')?.startsWith('text/event-stream') && response.body) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    ended = (async () => {
      let pending = '';
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          pending += decoder.decode(value, { stream: true });
          let cut = pending.indexOf('\n\n');
          while (cut >= 0) {
            const data = /^data: (.*)$/m.exec(pending.slice(0, cut))?.[1];
            pending = pending.slice(cut + 2);
            if (data) messages.push(JSON.parse(data) as Message);
            cut = pending.indexOf('\n\n');
          }
          for (const wake of waiters) wake();
        }
      } catch {
        // Aborted by the test.
      }
    })();
  } else {
    messages.push((await response.json()) as Message);
  }
  return {
    status: response.status,
    messages,
    ended,
    close: () => abort.abort(),
    next: (match, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        let seen = 0;
        const check = () => {
          for (; seen < messages.length; seen++) {
            const message = messages[seen] as Message;
            if (match(message)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(message);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching message in ${timeoutMs} ms; got ${JSON.stringify(messages)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
  };
}

const acknowledged = (m: Message) => m.method === 'notifications/subscriptions/acknowledged';
const taskNote = (id: string, status: string) => (m: Message) =>
  m.method === 'notifications/tasks' && m.params?.taskId === id && m.params?.status === status;

describe('subscriptions/listen through the gateway, for a 2026-07-28 client', () => {
  let gateway: RunningGateway;
  let jobs: { child: ChildProcess; url: string } | undefined;
  let client: Client;

  beforeAll(async () => {
    jobs = await startListeningFixture(FIXTURE, { TASK_SERVER_NAME: 'jobs' });
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { jobs: { url: jobs.url } },
        exposure: 'metatools',
        observability: { logLevel: 'warn' },
        policies: {
          rules: [
            {
              name: 'not-that-one',
              effect: 'deny',
              tools: ['jobs:resources/subscribe'],
              when: 'args.uri == "jobs://denied"',
            },
          ],
        },
      },
      'aperture-listen-',
    );
    client = new Client({ name: 'listen-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await gateway?.[Symbol.asyncDispose]();
    if (jobs) await stopProcess(jobs.child);
  });

  it("tells a server task's status, under the gateway's id, until it completes", async () => {
    const started = await modern(gateway.url, 'tools/call', {
      name: 'run_tool',
      arguments: { tool_id: 'jobs:slow_job', args: { label: 'heard', ms: 600 } },
    });
    const id = (started.result as { taskId: string }).taskId;
    expect(id).toMatch(/^task-[0-9a-f]{32}$/);
    const stream = await listen(gateway.url, { taskIds: [id, 'task-00000000000000000000000000000000'] });
    try {
      expect(stream.status).toBe(200);
      const ack = await stream.next(acknowledged);
      // Only the caller's existing task is honoured; tool changes were not asked for.
      expect(ack.params?.notifications).toEqual({ taskIds: [id] });
      expect(ack.params?._meta).toHaveProperty([SUBSCRIPTION_ID], 'sub-1');
      const working = await stream.next(taskNote(id, 'working'));
      expect(working.params?._meta).toHaveProperty([SUBSCRIPTION_ID], 'sub-1');
      const done = await stream.next(taskNote(id, 'completed'));
      expect(done.params?.result).toEqual({
        content: [{ type: 'text', text: 'done heard by jobs' }],
        isError: false,
      });
      // The same state is told once: no repeat of `working` after it.
      expect(stream.messages.filter(taskNote(id, 'working'))).toHaveLength(1);
    } finally {
      stream.close();
    }
  });

  it("tells the gateway's own task's status (run_chain), cancelled included", async () => {
    const chain = (ms: number) => ({
      name: 'run_chain',
      arguments: { steps: [{ tool_id: 'jobs:nap', args: { ms } }] },
    });
    const quick = ((await modern(gateway.url, 'tools/call', chain(300))).result as { taskId: string }).taskId;
    const long = ((await modern(gateway.url, 'tools/call', chain(30_000))).result as { taskId: string })
      .taskId;
    const stream = await listen(gateway.url, { taskIds: [quick, long], toolsListChanged: true });
    try {
      const ack = await stream.next(acknowledged);
      expect(ack.params?.notifications).toEqual({ toolsListChanged: true, taskIds: [quick, long] });
      const done = await stream.next(taskNote(quick, 'completed'));
      expect(JSON.stringify(done.params?.result)).toContain('slept 300');
      expect((await modern(gateway.url, 'tasks/cancel', { taskId: long })).error).toBeUndefined();
      await stream.next(taskNote(long, 'cancelled'));
    } finally {
      stream.close();
    }
  });

  it('answers -32021 to task ids from a client that did not declare the Tasks extension', async () => {
    const stream = await listen(gateway.url, { taskIds: ['task-1'] }, false);
    expect(stream.status).toBe(400);
    expect(stream.messages[0]?.error?.code).toBe(-32021);
  });

  it("carries a downstream resource's updates and prompt list changes, by the names the client sees; a URI the policy refuses is left out", async () => {
    const { resources } = await client.listResources();
    const status = resources.find((r) => r.name === 'status')?.uri;
    expect(status).toBeDefined();
    const stream = await listen(gateway.url, {
      resourceSubscriptions: [status, 'jobs://denied'],
      promptsListChanged: true,
    });
    try {
      const ack = await stream.next(acknowledged);
      // The URI a policy refuses to subscribe is left out (the server would take any URI).
      expect(ack.params?.notifications).toEqual({
        promptsListChanged: true,
        resourceSubscriptions: [status],
      });
      await client.callTool({ name: 'run_tool', arguments: { tool_id: 'jobs:touch_status', args: {} } });
      const update = await stream.next((m) => m.method === 'notifications/resources/updated');
      expect(update.params?.uri).toBe(status);
      await client.callTool({ name: 'run_tool', arguments: { tool_id: 'jobs:touch_prompts', args: {} } });
      await stream.next((m) => m.method === 'notifications/prompts/list_changed');
      // Nothing the client did not ask for.
      expect(stream.messages.some((m) => m.method === 'notifications/tools/list_changed')).toBe(false);
    } finally {
      stream.close();
    }
  });

  it('ends a stream that honours nothing gracefully, right after its acknowledgement', async () => {
    // A task id that is no task of this caller is all it asks for.
    const stream = await listen(gateway.url, { taskIds: ['task-00000000000000000000000000000001'] }, true, 7);
    await stream.ended;
    expect(stream.messages[0]).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    expect(stream.messages[0]?.params?.notifications).toEqual({});
    expect(stream.messages[1]).toMatchObject({ id: 7, result: { resultType: 'complete' } });
  });
});
