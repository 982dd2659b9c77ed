import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import type { StateStore, StateValue } from '../../foundation/ports/state-store.js';
import { InFlightCalls } from '../../foundation/util/in-flight-calls.js';
import {
  GATEWAY_TASKS_SCOPE,
  GatewayTasks,
  REPLICA_STOPPED,
  REPLICA_UNRESPONSIVE,
  TASK_HEARTBEAT_MS,
} from './gateway-tasks.js';
import { GATEWAY_TASK_SOURCE, TaskRoutes } from './task-routes.js';

/** A call that ends when told to, or when aborted. */
function pending() {
  let finish: (value: Record<string, unknown>) => void = () => {};
  let seen: AbortSignal | undefined;
  const run = (signal: AbortSignal) => {
    seen = signal;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      finish = resolve;
      signal.addEventListener('abort', () => reject(signal.reason));
    });
  };
  return { run, finish: (value: Record<string, unknown>) => finish(value), signal: () => seen };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * A store shared by two replicas: `shared` as one replica's, `watched` as the other's, which is
 * told of a change another replica made when the test calls `changed` (as Redis tells it).
 */
function watchedStore() {
  const shared = new MemoryStateStore();
  let listener: ((scope: string, key: string) => void) | undefined;
  const watched: StateStore = Object.assign(Object.create(shared) as StateStore, {
    watch: (l: (scope: string, key: string) => void) => {
      listener = l;
      return () => {};
    },
  });
  return { shared, watched, changed: (scope: string, key: string) => listener?.(scope, key) };
}

describe('GatewayTasks', () => {
  it('answers the task at once, routed as the gateway own, and its result once the call ends', async () => {
    const store = new MemoryStateStore();
    const routes = new TaskRoutes(store);
    const tasks = new GatewayTasks(store, routes);
    const call = pending();
    const created = await tasks.start('alice', call.run);
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const id = created.taskId as string;
    expect(await routes.find(id, 'alice')).toMatchObject({ source: GATEWAY_TASK_SOURCE });
    expect(tasks.get(id)).toMatchObject({ taskId: id, status: 'working' });
    call.finish({ content: [{ type: 'text', text: 'ok' }] });
    await settle();
    expect(tasks.get(id)).toMatchObject({
      status: 'completed',
      result: { content: [{ type: 'text', text: 'ok' }] },
    });
    // A finished task is not cancelled any more.
    tasks.cancel(id);
    expect(tasks.get(id)?.status).toBe('completed');
  });

  it('a call that throws fails the task with a JSON-RPC error', async () => {
    const store = new MemoryStateStore();
    const tasks = new GatewayTasks(store, new TaskRoutes(store));
    const created = await tasks.start('alice', async () => {
      throw new Error('boom');
    });
    await settle();
    expect(tasks.get(created.taskId as string)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: 'boom' },
    });
  });

  it('cancels here by aborting the call, and on another replica through the shared store', async () => {
    const { shared, watched, changed } = watchedStore();
    const running = new GatewayTasks(watched, new TaskRoutes(watched));
    const other = new GatewayTasks(shared, new TaskRoutes(shared));
    const call = pending();
    const id = (await running.start('alice', call.run)).taskId as string;
    other.cancel(id);
    expect(call.signal()?.aborted).toBe(false);
    // The change reaches the replica running the call.
    changed(GATEWAY_TASKS_SCOPE, id);
    expect(call.signal()?.aborted).toBe(true);
    await settle();
    expect(running.get(id)?.status).toBe('cancelled');

    const here = pending();
    const local = (await running.start('alice', here.run)).taskId as string;
    running.cancel(local);
    expect(here.signal()?.aborted).toBe(true);
    await settle();
    expect(running.get(local)?.status).toBe('cancelled');
  });
});

/** The raw state of task `id` in `store`, heartbeat included. */
function raw(store: StateStore, id: string): Record<string, StateValue> {
  return store.get(GATEWAY_TASKS_SCOPE, id) as Record<string, StateValue>;
}

/** A store that counts the keys written to the gateway's tasks, and the writes (one per `setMany`). */
function counting(store: StateStore): { store: StateStore; writes: () => number; keys: () => number } {
  let writes = 0;
  let keys = 0;
  const counted: StateStore = Object.assign(Object.create(store) as StateStore, {
    set: (scope: string, key: string, value: StateValue) => {
      if (scope === GATEWAY_TASKS_SCOPE) {
        writes++;
        keys++;
      }
      store.set(scope, key, value);
    },
    setMany: (scope: string, entries: readonly (readonly [string, StateValue])[]) => {
      if (scope === GATEWAY_TASKS_SCOPE) {
        writes++;
        keys += entries.length;
      }
      store.setMany(scope, entries);
    },
  });
  return { store: counted, writes: () => writes, keys: () => keys };
}

describe('GatewayTasks when the replica running a task is gone', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps a task working on every replica while the one running it refreshes its heartbeat', async () => {
    vi.useFakeTimers();
    const shared = new MemoryStateStore();
    const running = new GatewayTasks(shared, new TaskRoutes(shared), { heartbeatMs: 1_000 });
    const other = new GatewayTasks(shared, new TaskRoutes(shared), { heartbeatMs: 1_000 });
    const call = pending();
    const id = (await running.start('alice', call.run)).taskId as string;
    expect(raw(shared, id).aliveAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(Date.parse(raw(shared, id).aliveAt as string)).toBe(Date.now());
    expect(other.get(id)?.status).toBe('working');
    // The heartbeat is the gateway's own: not a field of the extension's task.
    expect(other.get(id)).not.toHaveProperty('aliveAt');
    expect(running.get(id)).not.toHaveProperty('aliveAt');
    call.finish({ content: [] });
    await vi.advanceTimersByTimeAsync(0);
    expect(other.get(id)?.status).toBe('completed');
    expect(raw(shared, id)).not.toHaveProperty('aliveAt');
    // No task runs: no timer left beating.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers failed on another replica once a crashed replica missed three heartbeats, and writes it back', async () => {
    vi.useFakeTimers();
    const shared = new MemoryStateStore();
    // A replica whose writes stop reaching the shared store once it crashed.
    let crashed = false;
    const replica: StateStore = Object.assign(Object.create(shared) as StateStore, {
      set: (scope: string, key: string, value: StateValue) => {
        if (!crashed) shared.set(scope, key, value);
      },
      setMany: (scope: string, entries: readonly (readonly [string, StateValue])[]) => {
        if (!crashed) shared.setMany(scope, entries);
      },
    });
    const crashing = new GatewayTasks(replica, new TaskRoutes(replica), { heartbeatMs: 1_000 });
    const other = new GatewayTasks(shared, new TaskRoutes(shared), { heartbeatMs: 1_000 });
    const id = (await crashing.start('alice', pending().run)).taskId as string;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(raw(shared, id).aliveAt).toBeDefined();
    crashed = true;
    await vi.advanceTimersByTimeAsync(3_000);
    expect(other.get(id)?.status).toBe('working');
    await vi.advanceTimersByTimeAsync(1);
    const answer = other.get(id);
    expect(answer).toMatchObject({
      taskId: id,
      status: 'failed',
      error: { code: -32603, message: expect.stringContaining(REPLICA_UNRESPONSIVE) },
    });
    expect(answer).not.toHaveProperty('aliveAt');
    expect(answer?.lastUpdatedAt).toBe(new Date(Date.now()).toISOString());
    // Written back: every replica (and the next poll) reads failed without judging again.
    expect(raw(shared, id)).toMatchObject({ status: 'failed' });
    // A failed task is not cancelled any more.
    other.cancel(id);
    expect(other.get(id)?.status).toBe('failed');
  });

  it('judges a record written before heartbeats by its last update, with the injected clock', () => {
    let now = Date.parse('2026-11-29T10:00:00Z');
    const shared = new MemoryStateStore();
    const tasks = new GatewayTasks(shared, new TaskRoutes(shared), { heartbeatMs: 5_000, now: () => now });
    const old = {
      status: 'working',
      createdAt: '2026-11-29T09:59:00.000Z',
      lastUpdatedAt: '2026-11-29T09:59:50.000Z',
      ttlMs: 900_000,
      pollIntervalMs: 500,
    };
    shared.set(GATEWAY_TASKS_SCOPE, 'task-old', old);
    expect(tasks.get('task-old')?.status).toBe('working');
    now += 5_001;
    expect(tasks.get('task-old')).toMatchObject({ status: 'failed', error: { code: -32603 } });
  });

  it('fails rather than cancels a task whose replica stopped answering', () => {
    const now = Date.parse('2026-11-29T10:00:00Z');
    const shared = new MemoryStateStore();
    const tasks = new GatewayTasks(shared, new TaskRoutes(shared), { heartbeatMs: 1_000, now: () => now });
    shared.set(GATEWAY_TASKS_SCOPE, 'task-gone', {
      status: 'working',
      createdAt: '2026-11-29T09:00:00.000Z',
      lastUpdatedAt: '2026-11-29T09:00:00.000Z',
      aliveAt: '2026-11-29T09:59:56.000Z',
    });
    tasks.cancel('task-gone');
    expect(raw(shared, 'task-gone')).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('no heartbeat for 4 s') },
    });
  });

  it('on close records its running tasks failed before its writes settle, and aborts their calls', async () => {
    const shared = new MemoryStateStore();
    const seenAtSettle: unknown[] = [];
    let id = '';
    const tasks = new GatewayTasks(shared, new TaskRoutes(shared), {
      settled: async () => {
        seenAtSettle.push(raw(shared, id).status);
      },
    });
    // A call that answers only later, whatever the abort.
    let answer: (value: Record<string, unknown>) => void = () => {};
    let signal: AbortSignal | undefined;
    id = (
      await tasks.start('alice', (s) => {
        signal = s;
        return new Promise((resolve) => {
          answer = resolve;
        });
      })
    ).taskId as string;
    await tasks.close();
    expect(seenAtSettle).toEqual(['failed']);
    expect(signal?.aborted).toBe(true);
    // The store closes after the feature: the call answering later touches it no more (a read of
    // the closed store would throw, an unhandled rejection failing this test).
    shared.close();
    answer({ content: [] });
    await settle();
    expect(tasks.size).toBe(0);
  });

  it('answers failed on another replica as soon as the stopping one closed', async () => {
    const shared = new MemoryStateStore();
    const stopping = new GatewayTasks(shared, new TaskRoutes(shared));
    const other = new GatewayTasks(shared, new TaskRoutes(shared));
    const done = (await stopping.start('alice', async () => ({ content: [] }))).taskId as string;
    const id = (await stopping.start('alice', pending().run)).taskId as string;
    await settle();
    await stopping.close();
    expect(other.get(id)).toMatchObject({
      status: 'failed',
      error: { code: -32603, message: REPLICA_STOPPED },
    });
    // A task that finished keeps its result.
    expect(other.get(done)?.status).toBe('completed');
  });

  it("gives a running task the shutdown drain's grace period, and fails it when the drain cuts it", async () => {
    const shared = new MemoryStateStore();
    const calls = new InFlightCalls();
    const tasks = new GatewayTasks(shared, new TaskRoutes(shared), { calls });
    const quick = pending();
    const slow = pending();
    // As a metatool answers an abort: an error result, not a rejection.
    const answering = (signal: AbortSignal) =>
      new Promise<Record<string, unknown>>((resolve) => {
        signal.addEventListener('abort', () => resolve({ isError: true, content: [] }));
      });
    const quickId = (await tasks.start('alice', quick.run)).taskId as string;
    const slowId = (await tasks.start('alice', slow.run)).taskId as string;
    const answeringId = (await tasks.start('alice', answering)).taskId as string;
    expect(calls.size).toBe(3);
    const drained = calls.drain(200);
    setTimeout(() => quick.finish({ content: [{ type: 'text', text: 'in time' }] }), 20);
    expect(await drained).toEqual({ finished: 1, cut: 2 });
    expect(tasks.get(quickId)).toMatchObject({ status: 'completed' });
    for (const id of [slowId, answeringId]) {
      expect(tasks.get(id)).toMatchObject({
        status: 'failed',
        error: { code: -32603, message: REPLICA_STOPPED },
      });
    }
  });

  it('aborts its call when another replica gave the task up', async () => {
    const { shared, watched, changed } = watchedStore();
    const running = new GatewayTasks(watched, new TaskRoutes(watched));
    const call = pending();
    const id = (await running.start('alice', call.run)).taskId as string;
    shared.set(GATEWAY_TASKS_SCOPE, id, { ...raw(shared, id), status: 'failed' });
    changed(GATEWAY_TASKS_SCOPE, id);
    expect(call.signal()?.aborted).toBe(true);
  });

  it(`costs ${60_000 / TASK_HEARTBEAT_MS} writes of a running task per minute, one batch for all tasks`, async () => {
    vi.useFakeTimers();
    const { store, writes, keys } = counting(new MemoryStateStore());
    const tasks = new GatewayTasks(store, new TaskRoutes(store));
    for (let i = 0; i < 3; i++) await tasks.start('alice', pending().run);
    const before = { writes: writes(), keys: keys() };
    await vi.advanceTimersByTimeAsync(60_000);
    expect(keys() - before.keys).toBe(3 * (60_000 / TASK_HEARTBEAT_MS));
    expect(writes() - before.writes).toBe(60_000 / TASK_HEARTBEAT_MS);
  });

  it('sweeps expired routes and the state of the gateway tasks they led to', async () => {
    const store = new MemoryStateStore();
    const tasks = new GatewayTasks(store, new TaskRoutes(store));
    const id = (await tasks.start('alice', async () => ({ content: [] }), new Date(0))).taskId as string;
    await expect.poll(() => tasks.size).toBe(0);
    tasks.sweep(1_000);
    expect(tasks.get(id)).toBeDefined();
    tasks.sweep(26 * 3_600_000);
    expect(tasks.get(id)).toBeUndefined();
    expect(store.count(GATEWAY_TASKS_SCOPE)).toBe(0);
  });
});
