#!/usr/bin/env node
/**
 * What the heartbeat of the gateway's own tasks costs Redis: `run_chain` tasks (a step that naps
 * longer than the window) run on replica 0 of two `aperture serve` replicas sharing one Redis, and
 * Redis is watched over a window with no request, for 0 running tasks (the idle baseline) and each
 * count of `--tasks`, in one run.
 *
 *   npx tsx bench/task-heartbeat.ts [--tasks 1,10] [--window-ms 60000]
 *
 * Reported per minute (Redis's commands counted with MONITOR): the transactions (MULTI/EXEC: HSET +
 * PUBLISH), the HSETs of the tasks' hash and the task states they write (per running task), other
 * HSETs, the reads of the other replica (HMGET of what changed), and the bytes Redis received. Needs redis-server and
 * nginx (the cluster helper of the e2e tests); without them it prints that it was skipped.
 */
import path from 'node:path';
import { Redis } from 'ioredis';
import { startListeningFixture } from '../test/support/listening-fixture.js';
import { modernRequest } from '../test/support/modern-request.js';
import { clusterMissing, startReplicaCluster } from '../test/support/replica-cluster.js';
import { machine, option, ROOT, runIfMain, stopChild, table } from './lib/common.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/tasks/task-server.mjs');

interface Variant {
  tasks: number;
  /** Per minute, baseline included. */
  exec: number;
  /** HSETs of the gateway's tasks' hash, and the task states they wrote. */
  taskWrites: number;
  taskStates: number;
  /** HSETs of any other scope. */
  otherWrites: number;
  hmget: number;
  inputBytes: number;
}

/** A 2026-07-28 request declaring the Tasks extension; the answer's result. */
async function modern(base: string, method: string, params: Record<string, unknown>): Promise<any> {
  const answer = await modernRequest(base, method, params, { client: 'bench' });
  if (!answer.result) throw new Error(`${method}: ${JSON.stringify(answer)}`);
  return answer.result;
}

/** Every command Redis ran during `ms` (MONITOR), as its arguments. */
async function monitored(url: string, ms: number): Promise<string[][]> {
  const client = new Redis(url);
  const monitor = await client.monitor();
  const commands: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) => commands.push(args.map(String)));
  await new Promise((resolve) => setTimeout(resolve, ms));
  monitor.disconnect();
  client.disconnect();
  return commands;
}

export async function run() {
  const counts = String(option('tasks', '1,10'))
    .split(',')
    .map(Number)
    .filter((n) => n > 0);
  const windowMs = option('window-ms', 60_000);
  const config = { tasks: counts, windowMs };
  const missing = clusterMissing();
  if (missing) return { config, machine: machine(), skipped: missing.trim(), variants: [] as Variant[] };
  const jobs = await startListeningFixture(FIXTURE, { TASK_SERVER_NAME: 'jobs' });
  try {
    await using cluster = await startReplicaCluster({
      replicas: 2,
      config: {
        tools: { builtin: false },
        exposure: 'metatools',
        servers: { jobs: { url: jobs.url } },
        // The naps outlive the window: no task ends in it (the default call timeout is 60 s).
        execution: { timeoutMs: windowMs + 60_000 },
        observability: { logLevel: 'warn' },
      },
    });
    if (!cluster) throw new Error(`task-heartbeat: ${missing}`);
    const redis = new Redis(cluster.redis.url);
    const first = cluster.replicas[0]!.url;
    const variants: Variant[] = [];
    try {
      for (const tasks of [0, ...counts]) {
        const ids: string[] = [];
        for (let i = 0; i < tasks; i++) {
          const started = await modern(first, 'tools/call', {
            name: 'run_chain',
            arguments: { steps: [{ tool_id: 'jobs:nap', args: { ms: windowMs + 30_000 } }] },
          });
          ids.push(started.taskId);
        }
        // The tasks' own writes (start) settle before the window.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        process.stderr.write(`task-heartbeat: ${tasks} task(s) running, ${windowMs} ms…\n`);
        const before = Number(/total_net_input_bytes:(\d+)/.exec(await redis.info('stats'))?.[1]);
        const commands = await monitored(cluster.redis.url, windowMs);
        const after = Number(/total_net_input_bytes:(\d+)/.exec(await redis.info('stats'))?.[1]);
        const perMinute = (n: number) => (n * 60_000) / windowMs;
        const named = (name: string) => commands.filter((c) => c[0]?.toLowerCase() === name);
        const taskHsets = named('hset').filter((c) => c[1]?.endsWith(':state:gateway-tasks'));
        variants.push({
          tasks,
          exec: perMinute(named('exec').length),
          taskWrites: perMinute(taskHsets.length),
          taskStates: perMinute(taskHsets.reduce((n, c) => n + (c.length - 2) / 2, 0)),
          otherWrites: perMinute(named('hset').length - taskHsets.length),
          hmget: perMinute(named('hmget').length),
          // The INFO commands of this benchmark are in it, alike in every row.
          inputBytes: perMinute(after - before),
        });
        for (const id of ids) await modern(first, 'tasks/cancel', { taskId: id });
      }
    } finally {
      redis.disconnect();
    }
    return { config, machine: machine(), variants };
  } finally {
    await stopChild(jobs.child);
  }
}

export function render(results: Awaited<ReturnType<typeof run>>): string {
  if ('skipped' in results && results.skipped) return `## Task heartbeat\n\nSkipped: ${results.skipped}\n`;
  const rows = results.variants.map((v) => [
    v.tasks,
    v.exec.toFixed(1),
    v.taskWrites.toFixed(1),
    v.taskStates.toFixed(1),
    v.tasks > 0 ? (v.taskStates / v.tasks).toFixed(1) : '–',
    v.otherWrites.toFixed(1),
    v.hmget.toFixed(1),
    Math.round(v.inputBytes),
  ]);
  return [
    '## Task heartbeat',
    '',
    `${results.machine.nproc} CPUs; two replicas on one Redis, the tasks on replica 0; a window of ` +
      `${results.config.windowMs} ms per row with no request, Redis's commands counted by MONITOR; per minute.`,
    '',
    table(
      [
        'tasks running',
        'transactions (EXEC)',
        'HSET of gateway-tasks',
        'task states written',
        'per task',
        'other HSET',
        'HMGET (other replica)',
        'bytes received by Redis',
      ],
      rows,
    ),
    '',
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
