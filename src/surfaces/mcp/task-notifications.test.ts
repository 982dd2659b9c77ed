import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import type { PassthroughRelay, PassthroughServer } from './passthrough.js';
import { TaskNotifications } from './task-notifications.js';
import { GATEWAY_TASK_SOURCE, type OwnTasks, TaskRoutes } from './task-routes.js';

/** A server whose task `tasks/get` answers the given states in turn (the last one repeats). */
function serverWith(states: Record<string, unknown>[]): { server: PassthroughServer; polls: () => number } {
  let polls = 0;
  const client = {
    request: async (request: { method: string; params: { taskId: string } }) => {
      expect(request.method).toBe('tasks/get');
      const state = states[Math.min(polls++, states.length - 1)];
      return { resultType: 'complete', taskId: request.params.taskId, ...state };
    },
  } as unknown as Client;
  const relay = {
    sourceId: 'mcp:jobs',
    withClient: async <T>(_channel: unknown, use: (c: Client) => Promise<T>) => use(client),
  } as unknown as PassthroughRelay;
  return { server: { server: relay, prefix: true }, polls: () => polls };
}

const noGatewayTasks: OwnTasks = { get: () => undefined, cancel: () => {} };

async function collect(
  notifications: TaskNotifications,
  owner: string,
  ids: string[],
  until: (seen: Record<string, unknown>[]) => boolean,
) {
  const seen: Record<string, unknown>[] = [];
  const watch = await notifications.watch(owner, ids, (task) => seen.push(task));
  await expect.poll(() => until(seen), { timeout: 5_000, interval: 20 }).toBe(true);
  return { seen, watch };
}

describe('TaskNotifications', () => {
  it("tells each change of a server task's state once, under the gateway id, and stops when it ends", async () => {
    const routes = new TaskRoutes(new MemoryStateStore());
    const id = await routes.open('mcp:jobs', { taskId: 'server-7', status: 'working' }, 'alice');
    const at = (n: number) => `2026-11-29T00:00:0${n}Z`;
    const { server, polls } = serverWith([
      { status: 'working', lastUpdatedAt: at(0), pollIntervalMs: 0 },
      { status: 'working', lastUpdatedAt: at(0), pollIntervalMs: 0 },
      { status: 'working', statusMessage: 'half way', lastUpdatedAt: at(1), pollIntervalMs: 0 },
      { status: 'completed', lastUpdatedAt: at(2), result: { content: [] } },
    ]);
    const notifications = new TaskNotifications(routes, noGatewayTasks, () => [server], silentLogger);
    const { seen, watch } = await collect(notifications, 'alice', [id], (s) =>
      s.some((t) => t.status === 'completed'),
    );
    expect(watch.honored).toEqual([id]);
    expect(seen.map((t) => [t.taskId, t.status, t.statusMessage])).toEqual([
      [id, 'working', undefined],
      [id, 'working', 'half way'],
      [id, 'completed', undefined],
    ]);
    expect(seen.every((t) => !('resultType' in t))).toBe(true);
    const after = polls();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(polls()).toBe(after);
    watch.stop();
  });

  it("honours only the caller's own, existing tasks", async () => {
    const routes = new TaskRoutes(new MemoryStateStore());
    const mine = await routes.open('mcp:jobs', { taskId: 's-1', status: 'working' }, 'alice');
    const theirs = await routes.open('mcp:jobs', { taskId: 's-2', status: 'working' }, 'bob');
    const { server } = serverWith([{ status: 'working' }]);
    const notifications = new TaskNotifications(routes, noGatewayTasks, () => [server], silentLogger);
    const watch = await notifications.watch('alice', [mine, theirs, 'task-unknown', 's-1', mine], () => {});
    expect(watch.honored).toEqual([mine]);
    watch.stop();
  });

  it("reads the gateway's own tasks from its state, and stops polling once stopped", async () => {
    const routes = new TaskRoutes(new MemoryStateStore());
    const id = await routes.open(GATEWAY_TASK_SOURCE, { taskId: '', status: 'working' }, 'alice');
    let state: Record<string, unknown> = { taskId: id, status: 'working', lastUpdatedAt: 'a' };
    let reads = 0;
    const gateway: OwnTasks = {
      get: () => {
        reads++;
        return state;
      },
      cancel: () => {},
    };
    const notifications = new TaskNotifications(routes, gateway, () => [], silentLogger);
    const seen: Record<string, unknown>[] = [];
    const watch = await notifications.watch('alice', [id], (task) => seen.push(task));
    await expect.poll(() => seen.length).toBe(1);
    state = { taskId: id, status: 'working', statusMessage: 'step 2', lastUpdatedAt: 'b' };
    await expect.poll(() => seen.length, { timeout: 3_000 }).toBe(2);
    watch.stop();
    const stoppedAt = reads;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(reads).toBe(stoppedAt);
  });

  it('gives up on a task whose server keeps failing', async () => {
    const routes = new TaskRoutes(new MemoryStateStore());
    const id = await routes.open('mcp:gone', { taskId: 's-1', status: 'working' }, 'alice');
    const notifications = new TaskNotifications(routes, noGatewayTasks, () => [], silentLogger);
    const seen: Record<string, unknown>[] = [];
    const watch = await notifications.watch('alice', [id], (task) => seen.push(task));
    // Honoured (the route exists), but its server is not there: nothing is told.
    expect(watch.honored).toEqual([id]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([]);
    watch.stop();
  });
});
