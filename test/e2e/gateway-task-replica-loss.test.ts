import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startListeningFixture } from '../support/listening-fixture.js';
import { mcpPost } from '../support/mcp-post.js';
import { clusterMissing, type ReplicaCluster, startReplicaCluster } from '../support/replica-cluster.js';
import { ROOT, stopProcess } from './gateway-process.js';

/**
 * The gateway's own task (`run_chain` as a task of the Tasks extension, SEP-2663) when the replica
 * running it goes away, with three `aperture serve` replicas on one Redis. Killed (SIGKILL, no
 * goodbye): another replica answers `failed` once the task's heartbeat is three intervals old
 * (5 s each). Stopped (SIGTERM): the drain gives the task its grace period like any call in
 * flight; a task still running after it is recorded `failed` before the replica exits, so another
 * replica answers `failed` at once, and one that finished in the grace keeps its result.
 */

const FIXTURE = path.join(ROOT, 'test/fixtures/tasks/task-server.mjs');
const TASKS = 'io.modelcontextprotocol/tasks';
const REVISION = '2026-07-28';
/** The gateway's heartbeat interval (`TASK_HEARTBEAT_MS`) and the missed beats that fail a task. */
const HEARTBEAT_MS = 5_000;
const BOUND_MS = 3 * HEARTBEAT_MS;
const GRACE_MS = 4_000;

const skip = clusterMissing();

const Task = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  error: z.looseObject({ code: z.number(), message: z.string() }).optional(),
});
type TaskAnswer = z.infer<typeof Task>;

/** `run_chain` of one step that naps `ms`, as a 2026-07-28 client that declared the Tasks extension. */
async function startChain(base: string, ms: number): Promise<string> {
  const response = await fetch(
    `${base}/mcp`,
    mcpPost(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'run_chain',
          arguments: { steps: [{ tool_id: 'jobs:nap', args: { ms } }] },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': REVISION,
            'io.modelcontextprotocol/clientInfo': { name: 'replica-loss-e2e', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
          },
        },
      },
      { 'mcp-protocol-version': REVISION, 'mcp-method': 'tools/call', 'mcp-name': 'run_chain' },
    ),
  );
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  const answer = JSON.parse(json) as { result?: { resultType?: string; taskId?: string } };
  expect(answer.result?.resultType).toBe('task');
  return answer.result?.taskId as string;
}

/** The official SDK client on the 2026-07-28 wire, for `tasks/get`. */
async function sdkClient(base: string): Promise<Client> {
  const client = new Client(
    { name: 'replica-loss-e2e', version: '1.0.0' },
    { capabilities: { extensions: { [TASKS]: {} } } as never },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
  return client;
}

function taskOf(client: Client, taskId: string): Promise<TaskAnswer> {
  return client.request({ method: 'tasks/get', params: { taskId } } as never, Task) as Promise<TaskAnswer>;
}

/** Polls until the task leaves `working` or `withinMs` passed; the last answer and when it came. */
async function untilSettled(
  client: Client,
  taskId: string,
  withinMs: number,
): Promise<{ task: TaskAnswer; afterMs: number }> {
  const start = Date.now();
  for (;;) {
    const task = await taskOf(client, taskId);
    const afterMs = Date.now() - start;
    if (task.status !== 'working' || afterMs > withinMs) return { task, afterMs };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

describe(`a gateway task whose replica stops never stays working (Redis, three replicas)${skip}`, () => {
  let cluster: ReplicaCluster | null = null;
  let jobs: { child: ChildProcess; url: string } | undefined;

  beforeAll(async () => {
    if (skip) return;
    jobs = await startListeningFixture(FIXTURE, { TASK_SERVER_NAME: 'jobs' });
    cluster = await startReplicaCluster({
      replicas: 3,
      config: {
        tools: { builtin: false },
        exposure: 'metatools',
        servers: { jobs: { url: jobs.url } },
        shutdown: { graceMs: GRACE_MS },
        observability: { logLevel: 'warn' },
      },
    });
  }, 180_000);

  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
    if (jobs) await stopProcess(jobs.child);
  }, 60_000);

  it.skipIf(skip)(
    'killed (SIGKILL) while its run_chain task runs: another replica answers failed within three heartbeats',
    async () => {
      const c = cluster as ReplicaCluster;
      const [first, , third] = c.replicas.map((r) => r.url) as [string, string, string];
      const id = await startChain(first, 120_000);
      const client = await sdkClient(third);
      try {
        // Past a heartbeat: the other replica still answers working while the first one lives.
        await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS + 1_000));
        expect((await taskOf(client, id)).status).toBe('working');
        await c.kill(0);
        // The last heartbeat is at most one interval old when the replica dies.
        const { task, afterMs } = await untilSettled(client, id, BOUND_MS + 5_000);
        expect(task.status).toBe('failed');
        expect(task.error).toMatchObject({
          code: -32603,
          message: expect.stringContaining('stopped answering'),
        });
        expect(afterMs).toBeLessThanOrEqual(BOUND_MS + 5_000);
        // The heartbeat is the gateway's own: no field of the extension's task.
        expect(task).not.toHaveProperty('aliveAt');
        // Written back: another replica answers failed without judging the heartbeat again.
        const again = await sdkClient(third);
        try {
          expect((await taskOf(again, id)).status).toBe('failed');
        } finally {
          await again.close();
        }
      } finally {
        await client.close();
      }
    },
    90_000,
  );

  it.skipIf(skip)(
    'stopped (SIGTERM): a task done within the grace period keeps its result, one still running is failed as the replica exits',
    async () => {
      const c = cluster as ReplicaCluster;
      const [, second, third] = c.replicas as [
        unknown,
        { url: string; child: ChildProcess },
        { url: string },
      ];
      const quick = await startChain(second.url, 1_500);
      const long = await startChain(second.url, 120_000);
      const client = await sdkClient(third.url);
      try {
        expect((await taskOf(client, long)).status).toBe('working');
        const gone = exited(second.child);
        second.child.kill('SIGTERM');
        await gone;
        // At once: the replica wrote it before it exited (not the heartbeat's 15 s later).
        const { task, afterMs } = await untilSettled(client, long, 1_000);
        expect(task).toMatchObject({
          status: 'failed',
          error: { code: -32603, message: expect.stringContaining('stopped before the task finished') },
        });
        expect(afterMs).toBeLessThan(BOUND_MS);
        const done = await taskOf(client, quick);
        expect(done.status).toBe('completed');
        expect(JSON.stringify(done)).toContain('slept 1500');
      } finally {
        await client.close();
      }
    },
    60_000,
  );
});
