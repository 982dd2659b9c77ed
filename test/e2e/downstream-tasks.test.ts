import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { waitFor } from '../support/fixture-servers.js';
import { startListeningFixture } from '../support/listening-fixture.js';
import { type ModernAnswer, modernRequest } from '../support/modern-request.js';
import { clusterMissing, type ReplicaCluster, startReplicaCluster } from '../support/replica-cluster.js';
import { ROOT, type RunningGateway, startReadyGateway, stopProcess } from './gateway-process.js';

/**
 * The Tasks extension (SEP-2663) through the gateway: two 2026-07-28 servers whose `slow_job`
 * answers `resultType: "task"` (test/fixtures/tasks/task-server.mjs) behind `aperture serve` in
 * flat exposure (names namespaced). A client that declares the extension calls `jobs__slow_job`,
 * gets a task under the gateway's own id, polls `tasks/get` (the official SDK client) until the
 * server's result comes back, and `tasks/cancel` reaches the server that owns the task. With two
 * replicas on Redis, the task started on one is polled and cancelled on the other.
 */

const FIXTURE = path.join(ROOT, 'test/fixtures/tasks/task-server.mjs');
const TASKS = 'io.modelcontextprotocol/tasks';

function startTaskServer(name: string): Promise<{ child: ChildProcess; url: string }> {
  return startListeningFixture(FIXTURE, { TASK_SERVER_NAME: name });
}

/** A 2026-07-28 request as the wire carries it (the SDK client refuses a `resultType: "task"` answer). */
function modern(
  base: string,
  method: string,
  params: Record<string, unknown>,
  declareTasks = true,
  headers: Record<string, string> = {},
): Promise<ModernAnswer> {
  return modernRequest(base, method, params, { declareTasks, headers, client: 'tasks-e2e' });
}

/** The official SDK client on the 2026-07-28 wire, for `tasks/get` and `tasks/cancel`. */
async function sdkClient(base: string): Promise<Client> {
  const client = new Client(
    { name: 'tasks-e2e', version: '1.0.0' },
    { capabilities: { extensions: { [TASKS]: {} } } as never },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}

const Task = z.looseObject({ taskId: z.string(), status: z.string() });

async function pollUntilDone(client: Client, taskId: string): Promise<z.infer<typeof Task>> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const task = (await client.request(
      { method: 'tasks/get', params: { taskId } } as never,
      Task,
    )) as z.infer<typeof Task>;
    expect(task.taskId).toBe(taskId);
    if (task.status !== 'working' || Date.now() > deadline) return task;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function cancelledOn(url: string): Promise<string[]> {
  return (await (await fetch(new URL('/cancelled', url))).json()) as string[];
}

describe('downstream tasks through flat names', () => {
  let gateway: RunningGateway;
  const fixtures: { child: ChildProcess; url: string }[] = [];

  beforeAll(async () => {
    fixtures.push(await startTaskServer('jobs'), await startTaskServer('more'));
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { jobs: { url: fixtures[0]?.url }, more: { url: fixtures[1]?.url } },
        exposure: 'flat',
        observability: { logLevel: 'warn' },
      },
      'aperture-tasks-',
    );
  }, 60_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await Promise.all(fixtures.map(({ child }) => stopProcess(child)));
  });

  it('answers a task under its own id, and tasks/get brings the server result', async () => {
    const started = await modern(gateway.url, 'tools/call', {
      name: 'jobs__slow_job',
      arguments: { label: 'one', ms: 200 },
    });
    expect(started.error).toBeUndefined();
    const task = started.result as Record<string, unknown>;
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 60_000, pollIntervalMs: 50 });
    expect(task.taskId).toMatch(/^task-[0-9a-f]{32}$/);
    expect(task._meta).not.toHaveProperty('aperture/task-handle');

    const client = await sdkClient(gateway.url);
    try {
      // Its servers declare the extension, so the gateway does.
      expect(client.getServerCapabilities()?.extensions).toHaveProperty([TASKS]);
      const done = await pollUntilDone(client, task.taskId as string);
      expect(done.status).toBe('completed');
      expect(done.result).toEqual({ content: [{ type: 'text', text: 'done one by jobs' }], isError: false });
    } finally {
      await client.close();
    }
  });

  it('routes tasks/cancel to the server that owns the task (the other one never sees it)', async () => {
    const started = await modern(gateway.url, 'tools/call', {
      name: 'more__slow_job',
      arguments: { label: 'long', ms: 30_000 },
    });
    const id = started.result?.taskId as string;
    const cancelled = await modern(gateway.url, 'tasks/cancel', { taskId: id });
    expect(cancelled.error).toBeUndefined();
    expect(await cancelledOn(fixtures[1]?.url as string)).toHaveLength(1);
    expect(await cancelledOn(fixtures[0]?.url as string)).toEqual([]);
    const after = await modern(gateway.url, 'tasks/get', { taskId: id });
    expect(after.result).toMatchObject({ taskId: id, status: 'cancelled' });
  });

  it('answers -32602 for an unknown task id, and a client without the extension gets the final result', async () => {
    const unknown = await modern(gateway.url, 'tasks/get', { taskId: 'task-0000' });
    expect(unknown.error?.code).toBe(-32602);
    const server = (
      await modern(gateway.url, 'tasks/get', {
        taskId: (await cancelledOn(fixtures[1]?.url as string))[0] as string,
      })
    ).error?.code;
    // The server's own id is no gateway id: it reaches nothing.
    expect(server).toBe(-32602);
    // Flat exposure serves no run_chain: no task for it either, the unknown name's error.
    const chain = await modern(gateway.url, 'tools/call', {
      name: 'run_chain',
      arguments: { steps: [{ tool_id: 'jobs:nap', args: { ms: 1 } }] },
    });
    expect(chain.result?.resultType).not.toBe('task');
    // The server answers only a declaring client with a task (-32021 otherwise): the gateway
    // declares the extension for this one and waits for the task's end.
    const undeclared = await modern(
      gateway.url,
      'tools/call',
      { name: 'jobs__slow_job', arguments: { label: 'x', ms: 150 } },
      false,
    );
    expect(undeclared.result).toMatchObject({
      resultType: 'complete',
      content: [{ type: 'text', text: 'done x by jobs' }],
    });
    expect(undeclared.result?.isError).not.toBe(true);
    expect(undeclared.result?._meta ?? {}).not.toHaveProperty('aperture/task-handle');
  });

  it("brings a 2025 client the task's result, and its cancellation cancels the server's task", async () => {
    const client = new LegacyClient({ name: 'tasks-e2e-2025', version: '1.0.0' });
    await client.connect(new LegacyHttpTransport(new URL(`${gateway.url}/mcp`)));
    try {
      expect(client.getServerVersion()).toBeDefined();
      const result = await client.callTool({ name: 'more__slow_job', arguments: { label: 'old', ms: 100 } });
      expect(result.content).toEqual([{ type: 'text', text: 'done old by more' }]);
      expect(result.isError).not.toBe(true);

      const before = (await cancelledOn(fixtures[1]?.url as string)).length;
      const abort = new AbortController();
      const long = client.callTool(
        { name: 'more__slow_job', arguments: { label: 'long', ms: 30_000 } },
        undefined,
        { signal: abort.signal },
      );
      // The task exists at the server once the gateway polls it; then the client gives up.
      await new Promise((resolve) => setTimeout(resolve, 300));
      abort.abort();
      await expect(long).rejects.toThrow();
      await waitFor(
        'the server saw its task cancelled',
        async () => (await cancelledOn(fixtures[1]?.url as string)).length > before,
        5_000,
      );
    } finally {
      await client.close();
    }
  });
  it("passes a task's input requests to a 2026-07-28 client, and its tasks/update answer to the server", async () => {
    const started = await modern(gateway.url, 'tools/call', { name: 'jobs__ask_job', arguments: {} });
    const id = started.result?.taskId as string;
    expect(started.result).toMatchObject({ resultType: 'task', status: 'input_required' });
    const waiting = await modern(gateway.url, 'tasks/get', { taskId: id });
    expect(waiting.result).toMatchObject({
      taskId: id,
      status: 'input_required',
      inputRequests: { who: { method: 'elicitation/create', params: { message: 'Your name?' } } },
    });
    const update = await modern(gateway.url, 'tasks/update', {
      taskId: id,
      inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } },
    });
    expect(update.error).toBeUndefined();
    const done = await modern(gateway.url, 'tasks/get', { taskId: id });
    expect(done.result).toMatchObject({
      taskId: id,
      status: 'completed',
      result: { content: [{ type: 'text', text: 'hello Ada' }] },
    });
  });

  it("asks a 2025 client a task's input request on its session, and brings it the result", async () => {
    const asked: unknown[] = [];
    const client = new LegacyClient(
      { name: 'tasks-e2e-2025', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { name: 'Grace' } };
    });
    await client.connect(new LegacyHttpTransport(new URL(`${gateway.url}/mcp`)));
    try {
      const result = await client.callTool({ name: 'jobs__ask_job', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'hello Grace' }]);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ message: 'Your name?' });
    } finally {
      await client.close();
    }
    // A client that cannot answer: the call fails with a stable code, naming the capability.
    const mute = new LegacyClient({ name: 'tasks-e2e-mute', version: '1.0.0' });
    await mute.connect(new LegacyHttpTransport(new URL(`${gateway.url}/mcp`)));
    try {
      const refused = (await mute.callTool({ name: 'jobs__ask_job', arguments: {} })) as {
        isError?: boolean;
        structuredContent?: { error?: { code?: string; message?: string } };
      };
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent?.error?.code).toBe('execution_failed');
      expect(refused.structuredContent?.error?.message).toMatch(/elicitation\/create/);
    } finally {
      await mute.close();
    }
  });
});

describe('a task id in the hands of another caller', () => {
  let gateway: (RunningGateway & AsyncDisposable) | undefined;
  let jobs: { child: ChildProcess; url: string } | undefined;
  const as = (key: string) => ({ authorization: `Bearer ${key}` });
  const ALICE = 'alice-key-0123456789abcdef0123';
  const BOB = 'bob-key-0123456789abcdef012345';

  beforeAll(async () => {
    jobs = await startTaskServer('jobs');
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { jobs: { url: jobs.url } },
        exposure: 'flat',
        auth: {
          apiKeys: [
            { name: 'alice', key: ALICE, admin: true },
            { name: 'bob', key: BOB, admin: true },
          ],
        },
        observability: { logLevel: 'warn' },
      },
      'aperture-tasks-owner-',
    );
  }, 60_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (jobs) await stopProcess(jobs.child);
  });

  it('reaches nothing: another key can neither poll nor cancel it, its owner still can', async () => {
    const url = (gateway as RunningGateway).url;
    const started = await modern(
      url,
      'tools/call',
      { name: 'jobs__slow_job', arguments: { label: 'mine', ms: 30_000 } },
      true,
      as(ALICE),
    );
    expect(started.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = started.result?.taskId as string;
    expect((await modern(url, 'tasks/get', { taskId }, true, as(BOB))).error?.code).toBe(-32602);
    expect((await modern(url, 'tasks/cancel', { taskId }, true, as(BOB))).error?.code).toBe(-32602);
    expect(await cancelledOn(jobs?.url as string)).toHaveLength(0);
    expect((await modern(url, 'tasks/get', { taskId }, true, as(ALICE))).result).toMatchObject({
      taskId,
      status: 'working',
    });
    expect((await modern(url, 'tasks/cancel', { taskId }, true, as(ALICE))).error).toBeUndefined();
    expect(await cancelledOn(jobs?.url as string)).toHaveLength(1);
  });
});

describe('a downstream task through run_tool (metatools exposure)', () => {
  let gateway: RunningGateway;
  let jobs: { child: ChildProcess; url: string } | undefined;

  beforeAll(async () => {
    jobs = await startTaskServer('jobs');
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { jobs: { url: jobs.url } },
        exposure: 'metatools',
        observability: { logLevel: 'warn' },
      },
      'aperture-tasks-run-',
    );
  }, 60_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (jobs) await stopProcess(jobs.child);
  });

  it('answers run_tool of a task tool with the task, polled and cancelled like a flat one', async () => {
    const started = await modern(gateway.url, 'tools/call', {
      name: 'run_tool',
      arguments: { tool_id: 'jobs:slow_job', args: { label: 'via run_tool', ms: 100 } },
    });
    expect(started.result).toMatchObject({ resultType: 'task', status: 'working' });
    const client = await sdkClient(gateway.url);
    try {
      const done = await pollUntilDone(client, started.result?.taskId as string);
      expect(done).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'done via run_tool by jobs' }] },
      });
    } finally {
      await client.close();
    }
    const long = await modern(gateway.url, 'tools/call', {
      name: 'run_tool',
      arguments: { tool_id: 'jobs:slow_job', args: { label: 'long', ms: 30_000 } },
    });
    expect(
      (await modern(gateway.url, 'tasks/cancel', { taskId: long.result?.taskId as string })).error,
    ).toBeUndefined();
    expect(await cancelledOn(jobs?.url as string)).toHaveLength(1);
  });

  it("gives a client that did not declare the extension the task's result once it ends", async () => {
    const awaited = await modern(
      gateway.url,
      'tools/call',
      { name: 'run_tool', arguments: { tool_id: 'jobs:slow_job', args: { label: 'x', ms: 100 } } },
      false,
    );
    expect(awaited.result?.isError).not.toBe(true);
    expect(awaited.result?.resultType).toBe('complete');
    expect(JSON.stringify(awaited.result?.content)).toContain('done x by jobs');
  });
});

describe("the gateway's own long calls as tasks (run_chain)", () => {
  let gateway: RunningGateway;
  let jobs: { child: ChildProcess; url: string } | undefined;

  beforeAll(async () => {
    jobs = await startTaskServer('jobs');
    gateway = await startReadyGateway(
      {
        tools: { builtin: false },
        servers: { jobs: { url: jobs.url } },
        exposure: 'metatools',
        observability: { logLevel: 'warn' },
      },
      'aperture-tasks-chain-',
    );
  }, 60_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    if (jobs) await stopProcess(jobs.child);
  });

  const chain = (ms: number) => ({
    name: 'run_chain',
    arguments: { steps: [{ tool_id: 'jobs:nap', args: { ms } }] },
  });

  it('answers run_chain with a task for a client that declared the extension, and its result when polled', async () => {
    const started = await modern(gateway.url, 'tools/call', chain(200));
    expect(started.result).toMatchObject({ resultType: 'task', status: 'working' });
    const client = await sdkClient(gateway.url);
    try {
      const done = await pollUntilDone(client, started.result?.taskId as string);
      expect(done.status).toBe('completed');
      expect(JSON.stringify(done.result)).toContain('slept 200');
    } finally {
      await client.close();
    }
  });

  it('cancels a running chain, and answers a client without the extension at once', async () => {
    const started = await modern(gateway.url, 'tools/call', chain(30_000));
    const id = started.result?.taskId as string;
    expect((await modern(gateway.url, 'tasks/cancel', { taskId: id })).error).toBeUndefined();
    expect((await modern(gateway.url, 'tasks/get', { taskId: id })).result).toMatchObject({
      status: 'cancelled',
    });
    const plain = await modern(gateway.url, 'tools/call', chain(10), false);
    expect(plain.result?.resultType).toBe('complete');
    expect(JSON.stringify(plain.result)).toContain('slept 10');
  });

  it('runs a chain step that calls a task tool to the end of its task, as a task or not', async () => {
    const steps = {
      name: 'run_chain',
      arguments: {
        steps: [
          { tool_id: 'jobs:slow_job', args: { label: 'first', ms: 100 } },
          { tool_id: 'jobs:nap', args: { ms: 1 } },
        ],
      },
    };
    for (const declared of [true, false]) {
      const answer = await modern(gateway.url, 'tools/call', steps, declared);
      let result = answer.result;
      if (declared) {
        const client = await sdkClient(gateway.url);
        try {
          result = (await pollUntilDone(client, answer.result?.taskId as string)).result as typeof result;
        } finally {
          await client.close();
        }
      }
      expect(result?.isError).not.toBe(true);
      expect(JSON.stringify(result)).toContain('done first by jobs');
      expect(JSON.stringify(result)).toContain('slept 1');
    }
  });
});

const skip = clusterMissing();

describe(`a downstream task polled and cancelled on another replica (Redis)${skip}`, () => {
  let cluster: ReplicaCluster | null = null;
  let jobs: { child: ChildProcess; url: string } | undefined;

  beforeAll(async () => {
    if (skip) return;
    jobs = await startTaskServer('jobs');
    cluster = await startReplicaCluster({
      replicas: 2,
      config: {
        tools: { builtin: false },
        exposure: 'flat',
        servers: { jobs: { url: jobs.url }, other: { url: jobs.url } },
        observability: { logLevel: 'warn' },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
    if (jobs) await stopProcess(jobs.child);
  }, 60_000);

  it.skipIf(skip)(
    'starts on replica 0; replica 1 polls it to its result and cancels another',
    async () => {
      const c = cluster as ReplicaCluster;
      const [first, second] = c.replicas.map((r) => r.url) as [string, string];
      const started = await modern(first, 'tools/call', {
        name: 'jobs__slow_job',
        arguments: { label: 'r', ms: 200 },
      });
      const id = started.result?.taskId as string;
      expect(id).toMatch(/^task-/);
      const client = await sdkClient(second);
      try {
        const done = await pollUntilDone(client, id);
        expect(done).toMatchObject({
          status: 'completed',
          result: { content: [{ type: 'text', text: 'done r by jobs' }] },
        });
      } finally {
        await client.close();
      }
      const long = await modern(first, 'tools/call', {
        name: 'jobs__slow_job',
        arguments: { label: 'l', ms: 30_000 },
      });
      const longId = long.result?.taskId as string;
      expect((await modern(second, 'tasks/cancel', { taskId: longId })).error).toBeUndefined();
      expect(await cancelledOn(jobs?.url as string)).toHaveLength(1);
      expect((await modern(second, 'tasks/get', { taskId: longId })).result).toMatchObject({
        status: 'cancelled',
      });
    },
    60_000,
  );
});

describe(`the gateway's own task cancelled on another replica (Redis)${skip}`, () => {
  let cluster: ReplicaCluster | null = null;
  let jobs: { child: ChildProcess; url: string } | undefined;

  beforeAll(async () => {
    if (skip) return;
    jobs = await startTaskServer('jobs');
    cluster = await startReplicaCluster({
      replicas: 2,
      config: {
        tools: { builtin: false },
        exposure: 'metatools',
        servers: { jobs: { url: jobs.url } },
        observability: { logLevel: 'warn' },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
    if (jobs) await stopProcess(jobs.child);
  }, 60_000);

  it.skipIf(skip)(
    'run_chain started on replica 0 is polled on replica 1, and cancelled there stops on 0',
    async () => {
      const c = cluster as ReplicaCluster;
      const [first, second] = c.replicas.map((r) => r.url) as [string, string];
      const chain = (ms: number) => ({
        name: 'run_chain',
        arguments: { steps: [{ tool_id: 'jobs:nap', args: { ms } }] },
      });
      const quick = await modern(first, 'tools/call', chain(100));
      const client = await sdkClient(second);
      try {
        const done = await pollUntilDone(client, quick.result?.taskId as string);
        expect(done.status).toBe('completed');
        expect(JSON.stringify(done.result)).toContain('slept 100');
      } finally {
        await client.close();
      }
      const long = await modern(first, 'tools/call', chain(30_000));
      const id = long.result?.taskId as string;
      expect((await modern(second, 'tasks/cancel', { taskId: id })).error).toBeUndefined();
      // Replica 0, which runs the chain, took in the cancellation: it answers cancelled too.
      const deadline = Date.now() + 5_000;
      let status: unknown;
      do {
        status = (await modern(first, 'tasks/get', { taskId: id })).result?.status;
        if (status === 'cancelled') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      } while (Date.now() < deadline);
      expect(status).toBe('cancelled');
      // And it stopped the chain: the server's nap was cancelled.
      await waitFor('the nap aborted', async () =>
        ((await (await fetch(new URL('/aborted', jobs?.url))).json()) as number[]).includes(30_000),
      );
    },
    60_000,
  );
});
