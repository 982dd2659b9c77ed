#!/usr/bin/env node
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryStateStore } from '../src/foundation/ports/memory-state-store.js';
import type { StateStore, StateValue } from '../src/foundation/ports/state-store.js';
import { SqliteStateStore } from '../src/operations/state/sqlite-state-store.js';
import { GATEWAY_TASKS_SCOPE, GatewayTasks } from '../src/surfaces/mcp/gateway-tasks.js';
import { TASK_ROUTES_SCOPE, TaskRoutes } from '../src/surfaces/mcp/task-routes.js';
import { mcpPost } from '../test/support/mcp-post.js';
import { modernEnvelope, modernHeaders, modernRequest } from '../test/support/modern-request.js';
import { type RedisServerHandle, startRedisServer } from '../test/support/redis-server.js';
import {
  flag,
  GATEWAY_CLI,
  interleavedRounds,
  machine,
  median,
  ms,
  option,
  ROOT,
  runIfMain,
  spawnTracked,
  stopChild,
  summarize,
  table,
} from './lib/common.js';
import { type HttpServer, startHttpServer } from './lib/mcp-clients.js';

/*
 * What the Tasks extension (SEP-2663) costs per call through the gateway, side by side in one run
 * (variants interleaved in blocks, order rotated each round):
 *
 * (a) A downstream task: `slow_job {ms: 0}` of test/fixtures/tasks/task-server.mjs (a stateless
 *     2026-07-28 server) answers `resultType: "task"`; the client polls `tasks/get` back to back
 *     until the task is no longer `working`. Directly against the server, and through
 *     `aperture serve` (flat exposure, `jobs__slow_job`): the gateway maps the server's task id to
 *     its own (a route written to the state store) and relays each poll. Also one `tasks/get` of
 *     a completed task, one `tasks/cancel` of a working one (`ms: 60000`, created untimed), and,
 *     for scale, a plain tool call (`nap {ms: 0}`) relayed the same way.
 * (b) The gateway's own task: `run_chain` of one `nap {ms: 0}` step (metatools exposure), by a
 *     client declaring the extension (a task: create, then polls until `completed`) and by one
 *     that does not (answered synchronously).
 *     When redis-server is installed, also through a gateway whose state is on Redis
 *     (`state.driver: redis`, as replicas share task routes): the task's id is answered once its
 *     route reached Redis; a plain call and a task against the same calls on the SQLite gateway.
 * (c) The state store per task, counted: the real `TaskRoutes` / `GatewayTasks` over a store that
 *     counts its calls, and the rows the gateways' own `state.db` holds after the run.
 *
 * Every request is one raw JSON-RPC POST on the 2026-07-28 wire (fetch, keep-alive), the same
 * code for the server and the gateway: the SDK client refuses a `resultType: "task"` answer, and
 * a lighter client leaves more of each figure to the servers. Polls do not wait between
 * each other (a client honouring `pollIntervalMs` would): the figures are overhead, not waiting.
 */

const FIXTURE = path.join(ROOT, 'test/fixtures/tasks/task-server.mjs');

/** One 2026-07-28 request to `url` (an MCP endpoint, `…/mcp`); its result (an error throws). */
async function post(url: string, method: string, params: Record<string, unknown>, declare = true) {
  const answer = await modernRequest(url.replace(/\/mcp$/, ''), method, params, {
    declareTasks: declare,
    client: 'bench-tasks',
  });
  if (answer.error) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result as Record<string, unknown>;
}

/** Starts a tool call that must answer a task; its id. */
async function startTask(url: string, name: string, args: Record<string, unknown>): Promise<string> {
  const answer = await post(url, 'tools/call', { name, arguments: args });
  if (answer.resultType !== 'task') throw new Error(`${name}: no task: ${JSON.stringify(answer)}`);
  return answer.taskId as string;
}

/** Polls `tasks/get` back to back until the task left `working`; the number of polls. */
async function pollToEnd(url: string, taskId: string, expect: string): Promise<number> {
  for (let polls = 1; ; polls++) {
    const task = await post(url, 'tasks/get', { taskId });
    if (task.status === 'working') {
      if (polls > 10_000) throw new Error(`${taskId}: still working after ${polls} polls`);
      continue;
    }
    if (task.status !== 'completed' || !JSON.stringify(task.result).includes(expect)) {
      throw new Error(`${taskId}: ${JSON.stringify(task)}`);
    }
    return polls;
  }
}

/** One measured thing: `once` does it and returns the ms of the timed part (set-up excluded). */
interface Variant {
  key: string;
  label: string;
  once: () => Promise<number>;
  /** Polls per task (the variants that poll). */
  polls?: number[];
}

async function startFixture(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawnTracked(process.execPath, [FIXTURE], {
    cwd: ROOT,
    env: { ...process.env, TASK_SERVER_NAME: 'jobs' },
  });
  child.stderr?.resume();
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`task-server.mjs exited with ${code}`)));
  });
  return { child, url };
}

/** `aperture serve` (built CLI) with the fixture behind it, once `/readyz` says it reached it. */
async function startGateway(
  dir: string,
  exposure: string,
  serverUrl: string,
  redisUrl?: string,
): Promise<HttpServer> {
  const name = redisUrl ? `${exposure}-redis` : exposure;
  const config = path.join(dir, `${name}.yaml`);
  await writeFile(
    config,
    JSON.stringify({
      servers: { jobs: { url: serverUrl } },
      tools: { builtin: false },
      exposure,
      // The default driver (SQLite), each gateway in a folder of its own: what a task writes is
      // what a default deployment writes.
      state: redisUrl
        ? { driver: 'redis', redis: { url: redisUrl, prefix: 'bench-tasks:' } }
        : { driver: 'sqlite', dir: `state-${name}` },
      observability: { logLevel: 'warn' },
    }),
  );
  const gateway = await startHttpServer([GATEWAY_CLI, 'serve', '--config', config, '--port', '0']);
  const base = gateway.url.replace(/\/mcp$/, '');
  const deadline = Date.now() + 30_000;
  while ((await fetch(`${base}/readyz`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`gateway (${name}) not ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return gateway;
}

/** Times `work`. */
async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** The variants of (a) against `url`, calling `tool`. */
function downstreamVariants(
  side: 'direct' | 'gw' | 'gwr',
  label: string,
  url: string,
  tool: string,
  nap: string,
  only?: readonly string[],
): Variant[] {
  const polls: number[] = [];
  let done: string | undefined;
  const completed = async () => {
    if (!done) {
      done = await startTask(url, tool, { label: 'done', ms: 0 });
      await pollToEnd(url, done, 'done done');
    }
    return done;
  };
  const all: Variant[] = [
    {
      key: `${side}-plain`,
      label: `plain tool call \`nap {ms: 0}\` (for scale), ${label}`,
      once: () => timed(() => post(url, 'tools/call', { name: nap, arguments: { ms: 0 } })),
    },
    {
      key: `${side}-task`,
      label: `task to completion, ${label}`,
      polls,
      once: () =>
        timed(async () => {
          const id = await startTask(url, tool, { label: 'b', ms: 0 });
          polls.push(await pollToEnd(url, id, 'done b'));
        }),
    },
    {
      key: `${side}-get`,
      label: `one \`tasks/get\` (completed task), ${label}`,
      once: async () => {
        const taskId = await completed();
        return timed(() => post(url, 'tasks/get', { taskId }));
      },
    },
    {
      key: `${side}-cancel`,
      label: `one \`tasks/cancel\` (working task), ${label}`,
      once: async () => {
        const taskId = await startTask(url, tool, { label: 'c', ms: 60_000 });
        return timed(async () => {
          await post(url, 'tasks/cancel', { taskId });
        });
      },
    },
  ];
  return only ? all.filter((v) => only.includes(v.key.slice(side.length + 1))) : all;
}

/** The variants of (b) against the metatools gateway at `url`. */
function chainVariants(url: string): Variant[] {
  const chain = { name: 'run_chain', arguments: { steps: [{ tool_id: 'jobs:nap', args: { ms: 0 } }] } };
  const polls: number[] = [];
  return [
    {
      key: 'chain-sync',
      label: '`run_chain` answered synchronously (client without the extension)',
      once: () =>
        timed(async () => {
          const answer = await post(url, 'tools/call', chain, false);
          if (answer.resultType === 'task' || !JSON.stringify(answer).includes('slept 0')) {
            throw new Error(`run_chain: ${JSON.stringify(answer)}`);
          }
        }),
    },
    {
      key: 'chain-task',
      label: '`run_chain` as a gateway task (create + polls until completed)',
      polls,
      once: () =>
        timed(async () => {
          const id = await startTask(url, chain.name, chain.arguments);
          polls.push(await pollToEnd(url, id, 'slept 0'));
        }),
    },
  ];
}

/**
 * What this wave's later parts cost on the flat gateway at `url`: a task tool called by a client
 * that cannot take a task (the gateway declares the extension and polls the task to its end), and
 * opening a `subscriptions/listen` stream until its acknowledgement — for tool changes only (the
 * SDK's alone), with a downstream resource and prompt changes (a session of the stream's own), and
 * with a task id (the task watch).
 */
function laterVariants(url: string, resource: string): Variant[] {
  let completedTask: string | undefined;
  const task = async () => {
    if (!completedTask) {
      completedTask = await startTask(url, 'jobs__slow_job', { label: 'seen', ms: 0 });
      await pollToEnd(url, completedTask, 'done seen');
    }
    return completedTask;
  };
  return [
    {
      key: 'gw-awaited',
      label: 'task tool called without the extension: the gateway awaits the task (through the gateway)',
      once: () =>
        timed(async () => {
          const answer = await post(
            url,
            'tools/call',
            { name: 'jobs__slow_job', arguments: { label: 'w', ms: 0 } },
            false,
          );
          if (!JSON.stringify(answer.content).includes('done w'))
            throw new Error(`awaited: ${JSON.stringify(answer)}`);
        }),
    },
    {
      key: 'listen-tools',
      label: '`subscriptions/listen` opened until acknowledged: tool changes only',
      once: () => timed(() => listenUntilAcknowledged(url, { toolsListChanged: true })),
    },
    {
      key: 'listen-downstream',
      label: '… with a downstream resource and prompt changes (a session of its own)',
      once: () =>
        timed(() =>
          listenUntilAcknowledged(url, {
            toolsListChanged: true,
            promptsListChanged: true,
            resourceSubscriptions: [resource],
          }),
        ),
    },
    {
      key: 'listen-task',
      label: '… with a task id (the task watch)',
      once: async () => {
        const taskId = await task();
        return timed(() => listenUntilAcknowledged(url, { toolsListChanged: true, taskIds: [taskId] }));
      },
    },
  ];
}

/** Opens a listen stream at `url` (…/mcp), reads it until its acknowledgement, and closes it. */
async function listenUntilAcknowledged(url: string, notifications: Record<string, unknown>): Promise<void> {
  const abort = new AbortController();
  const params = { notifications, _meta: modernEnvelope({ client: 'bench-tasks' }) };
  const response = await fetch(url, {
    ...mcpPost(
      { jsonrpc: '2.0', id: 'listen', method: 'subscriptions/listen', params },
      modernHeaders('subscriptions/listen', params),
    ),
    signal: abort.signal,
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (reader && !text.includes('notifications/subscriptions/acknowledged')) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    abort.abort();
  }
  if (!text.includes('notifications/subscriptions/acknowledged')) throw new Error(`listen: ${text}`);
}

/** A state store that counts its calls by method and scope (reads of `count`/`entries` aside). */
class CountingStore implements StateStore {
  readonly calls = new Map<string, number>();
  constructor(private readonly inner: StateStore) {}
  private tally(method: string, scope: string) {
    const key = `${method} ${scope}`;
    this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
  }
  reset() {
    this.calls.clear();
  }
  get(scope: string, key: string) {
    this.tally('get', scope);
    return this.inner.get(scope, key);
  }
  set(scope: string, key: string, value: StateValue) {
    this.tally('set', scope);
    this.inner.set(scope, key, value);
  }
  getMany(scope: string, keys: readonly string[]) {
    this.tally('getMany', scope);
    return this.inner.getMany(scope, keys);
  }
  setMany(scope: string, entries: readonly (readonly [string, StateValue])[]) {
    this.tally('setMany', scope);
    this.inner.setMany(scope, entries);
  }
  delete(scope: string, key: string) {
    this.tally('delete', scope);
    this.inner.delete(scope, key);
  }
  entries(scope: string) {
    return this.inner.entries(scope);
  }
  count(scope: string) {
    return this.inner.count(scope);
  }
  close() {
    this.inner.close();
  }
}

/** Store calls per step of a task's life, by the gateway's own classes (in process). */
async function countStoreCalls() {
  const store = new CountingStore(new MemoryStateStore());
  const routes = new TaskRoutes(store);
  const gateway = new GatewayTasks(store, routes);
  const snapshot = () => {
    const out = Object.fromEntries([...store.calls].sort());
    store.reset();
    return out;
  };
  const owner = 'anonymous';
  // A downstream task: the route when it is handed out, then what one poll reads.
  const id = await routes.open('mcp:jobs', { taskId: 'server-1', status: 'working', ttlMs: 60_000 }, owner);
  const downstreamOpen = snapshot();
  await routes.find(id, owner);
  const downstreamPoll = snapshot();
  // The gateway's own task: started, finished, polled; another cancelled while it works.
  let finish: (value: Record<string, unknown>) => void = () => {};
  const answer = await gateway.start(owner, () => new Promise((resolve) => (finish = resolve)));
  const gatewayStart = snapshot();
  finish({ content: [] });
  await new Promise((resolve) => setImmediate(resolve));
  const gatewayFinish = snapshot();
  const ownId = answer.taskId as string;
  await routes.find(ownId, owner);
  gateway.get(ownId);
  const gatewayPoll = snapshot();
  const other = await gateway.start(
    owner,
    (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
  );
  snapshot();
  await routes.find(other.taskId as string, owner);
  gateway.cancel(other.taskId as string);
  await new Promise((resolve) => setImmediate(resolve));
  const gatewayCancel = snapshot();
  gateway.close();
  return { downstreamOpen, downstreamPoll, gatewayStart, gatewayFinish, gatewayPoll, gatewayCancel };
}

/** Rows of the task scopes in a gateway's `state.db` (read after it stopped). */
function rowsIn(dir: string) {
  const store = new SqliteStateStore(dir);
  try {
    return { routes: store.count(TASK_ROUTES_SCOPE), states: store.count(GATEWAY_TASKS_SCOPE) };
  } finally {
    store.close();
  }
}

export async function run(options: Record<string, number> = {}) {
  const n = options.n ?? option('n', 300);
  const warmup = options.warmup ?? option('warmup', 30);
  const blockSize = options.block ?? option('block', 30);
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-bench-tasks-'));
  let fixture: ChildProcess | undefined;
  let flat: HttpServer | undefined;
  let metatools: HttpServer | undefined;
  let onRedis: HttpServer | undefined;
  let redis: RedisServerHandle | null = null;
  try {
    const server = await startFixture();
    fixture = server.child;
    flat = await startGateway(dir, 'flat', server.url);
    metatools = await startGateway(dir, 'metatools', server.url);
    if (!flag('no-redis')) redis = await startRedisServer();
    if (redis) onRedis = await startGateway(dir, 'flat', server.url, redis.url);
    const variants = [
      ...downstreamVariants('direct', 'server directly', server.url, 'slow_job', 'nap'),
      ...downstreamVariants('gw', 'through the gateway (flat)', flat.url, 'jobs__slow_job', 'jobs__nap'),
      ...chainVariants(metatools.url),
      ...laterVariants(flat.url, 'jobs://status'),
      ...(onRedis
        ? downstreamVariants(
            'gwr',
            'through the gateway (flat), state on Redis',
            onRedis.url,
            'jobs__slow_job',
            'jobs__nap',
            ['plain', 'task'],
          )
        : []),
    ];
    const loadBefore = machine().loadavg;
    const { samples, roundP50, seconds } = await interleavedRounds(variants, {
      n,
      warmup,
      blockSize,
      block: async (variant, count, sink) => {
        for (let i = 0; i < count; i++) {
          const took = await variant.once();
          sink?.push(took);
        }
      },
      onRound: (r, rounds) => process.stderr.write(`  tasks: round ${r}/${rounds}\r`),
    });
    process.stderr.write('\n');
    const loadAfter = machine().loadavg;
    const p50 = (key: string) => summarize(samples[key] ?? []).p50;
    const pair = (variant: string, baseline: string) => ({
      ratio: p50(variant) / p50(baseline),
      added: median((roundP50[variant] ?? []).map((v, i) => v - (roundP50[baseline]?.[i] ?? Number.NaN))),
    });
    // Every task of the run, warm-up included: the tasks each gateway was asked for.
    const tasksPerVariant = n + warmup;
    await flat.stop();
    await metatools.stop();
    await onRedis?.stop();
    const flatRows = rowsIn(path.join(dir, 'state-flat'));
    const metaRows = rowsIn(path.join(dir, 'state-metatools'));
    return {
      config: { n, warmup, block: blockSize },
      machine: machine(),
      load: { before: loadBefore, after: loadAfter },
      seconds,
      variants: variants.map((v) => ({
        key: v.key,
        label: v.label,
        stats: summarize(samples[v.key] ?? []),
        ...(v.polls ? { pollsMean: v.polls.reduce((a, b) => a + b, 0) / v.polls.length } : {}),
      })),
      ratios: {
        plain: pair('gw-plain', 'direct-plain'),
        task: pair('gw-task', 'direct-task'),
        get: pair('gw-get', 'direct-get'),
        cancel: pair('gw-cancel', 'direct-cancel'),
        chain: pair('chain-task', 'chain-sync'),
        awaited: pair('gw-awaited', 'gw-task'),
        awaitedPlain: pair('gw-awaited', 'gw-plain'),
        listenDownstream: pair('listen-downstream', 'listen-tools'),
        listenTask: pair('listen-task', 'listen-tools'),
        ...(onRedis
          ? { redisPlain: pair('gwr-plain', 'gw-plain'), redisTask: pair('gwr-task', 'gw-task') }
          : {}),
      },
      store: {
        calls: await countStoreCalls(),
        // Flat gateway: the tasks of `gw-task` and `gw-cancel`, and the one completed task polled.
        flat: { tasks: 2 * tasksPerVariant + 1, ...flatRows },
        metatools: { tasks: tasksPerVariant, ...metaRows },
      },
    };
  } finally {
    await flat?.stop();
    await metatools?.stop();
    await onRedis?.stop();
    await redis?.stop();
    await stopChild(fixture);
    await rm(dir, { recursive: true, force: true });
  }
}

export function render(results: Awaited<ReturnType<typeof run>>): string {
  const { n, warmup, block } = results.config;
  const m = results.machine;
  const r = results.ratios;
  const ratio = (label: string, p: { ratio: number; added: number }) => [
    label,
    `**${p.ratio.toFixed(2)}×**`,
    ms(p.added),
  ];
  const calls = (step: Record<string, number>) =>
    Object.entries(step)
      .map(([what, count]) => `${count} ${what}`)
      .join(', ') || '—';
  const c = results.store.calls;
  return [
    '## Tasks per call',
    '',
    `${n} calls per variant after ${warmup} warm-up, interleaved in blocks of ${block}; raw 2026-07-28 ` +
      `POSTs, polls back to back; times in ms. Node ${m.node}, ${m.nproc} cores, load ${results.load.before} ` +
      `→ ${results.load.after}, commit ${m.git}, ${results.seconds.toFixed(0)} s.`,
    '',
    table(
      ['variant', 'p50', 'p95', 'p99', 'polls per task'],
      results.variants.map((v) => [
        v.label,
        ms(v.stats.p50),
        ms(v.stats.p95),
        ms(v.stats.p99),
        'pollsMean' in v && typeof v.pollsMean === 'number' ? v.pollsMean.toFixed(2) : '',
      ]),
    ),
    '',
    table(
      ['against its baseline', 'p50 ratio', 'added at p50, paired by round (ms)'],
      [
        ratio('plain tool call (for scale): gateway / server directly', r.plain),
        ratio('downstream task to completion: gateway / server directly', r.task),
        ratio('one `tasks/get`: gateway / server directly', r.get),
        ratio('one `tasks/cancel`: gateway / server directly', r.cancel),
        ratio('`run_chain` of one step: as a task / synchronous', r.chain),
        ratio(
          'task tool without the extension, awaited by the gateway / the client polling itself',
          r.awaited,
        ),
        ratio('task tool without the extension, awaited / a plain tool call', r.awaitedPlain),
        ratio(
          'listen stream to its acknowledgement: + downstream resource and prompts / tools only',
          r.listenDownstream,
        ),
        ratio('listen stream to its acknowledgement: + a task id / tools only', r.listenTask),
        ...(r.redisPlain ? [ratio('plain tool call: gateway on Redis / on SQLite', r.redisPlain)] : []),
        ...(r.redisTask
          ? [ratio('downstream task to completion: gateway on Redis / on SQLite', r.redisTask)]
          : []),
      ],
    ),
    '',
    table(
      ['state store per step (in process, the gateway classes)', 'calls'],
      [
        ['downstream task handed out', calls(c.downstreamOpen)],
        ['downstream task, one poll or cancel (route lookup)', calls(c.downstreamPoll)],
        ['gateway task started', calls(c.gatewayStart)],
        ['gateway task finished', calls(c.gatewayFinish)],
        ['gateway task, one poll', calls(c.gatewayPoll)],
        ['gateway task cancelled', calls(c.gatewayCancel)],
      ],
    ),
    '',
    table(
      ['gateway `state.db` after the run', 'tasks asked for', '`task-routes` rows', '`gateway-tasks` rows'],
      [
        [
          'flat (downstream tasks)',
          results.store.flat.tasks,
          results.store.flat.routes,
          results.store.flat.states,
        ],
        [
          'metatools (`run_chain` tasks)',
          results.store.metatools.tasks,
          results.store.metatools.routes,
          results.store.metatools.states,
        ],
      ],
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
