import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import type { StateStore } from '../../foundation/ports/state-store.js';
import { GATEWAY_TASKS_SCOPE, GatewayTasks } from './gateway-tasks.js';
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
    const shared = new MemoryStateStore();
    let listener: ((scope: string, key: string) => void) | undefined;
    const watched: StateStore = Object.assign(Object.create(shared) as StateStore, {
      watch: (l: (scope: string, key: string) => void) => {
        listener = l;
        return () => {};
      },
    });
    const running = new GatewayTasks(watched, new TaskRoutes(watched));
    const other = new GatewayTasks(shared, new TaskRoutes(shared));
    const call = pending();
    const id = (await running.start('alice', call.run)).taskId as string;
    other.cancel(id);
    expect(call.signal()?.aborted).toBe(false);
    // The change reaches the replica running the call.
    listener?.(GATEWAY_TASKS_SCOPE, id);
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
