import type { ServerContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import type { StateStore } from '../../foundation/ports/state-store.js';
import { TASKS_EXTENSION } from '../../sources/mcp/downstream-tasks.js';
import { declaringTasks, TASK_ROUTES_SCOPE, TaskRoutes, taskAnswer } from './task-routes.js';

const handle = { taskId: 'server-1', status: 'working', ttlMs: 1_000 };

describe('TaskRoutes', () => {
  it('routes the gateway id to the server task, for its owner only', async () => {
    const store = new MemoryStateStore();
    const routes = new TaskRoutes(store);
    const id = await routes.open('mcp:jobs', handle, 'alice');
    expect(id).toMatch(/^task-[0-9a-f]{32}$/);
    expect(await routes.find(id, 'alice')).toMatchObject({
      source: 'mcp:jobs',
      taskId: 'server-1',
      owner: 'alice',
    });
    expect(await routes.find(id, 'bob')).toBeUndefined();
    expect(await routes.find('server-1', 'alice')).toBeUndefined();
    expect(store.count(TASK_ROUTES_SCOPE)).toBe(1);
  });

  it('forgets a route once the task TTL and the grace after it are over', async () => {
    const store = new MemoryStateStore();
    const routes = new TaskRoutes(store);
    const id = await routes.open('mcp:jobs', handle, 'alice', 0);
    expect(await routes.find(id, 'alice', 1_000)).toBeDefined();
    expect(await routes.find(id, 'alice', 1_000 + 25 * 3_600_000)).toBeUndefined();
    expect(store.count(TASK_ROUTES_SCOPE)).toBe(0);
  });

  it('sweeps every expired route at once, keeping the live ones', async () => {
    const store = new MemoryStateStore();
    const routes = new TaskRoutes(store);
    const old = await routes.open('mcp:jobs', handle, 'alice', 0);
    const live = await routes.open('mcp:jobs', handle, 'bob', 10 * 3_600_000);
    const now = 1_000 + 25 * 3_600_000;
    expect(routes.sweep(now)).toEqual([old]);
    expect(store.count(TASK_ROUTES_SCOPE)).toBe(1);
    expect(await routes.find(live, 'bob', now)).toBeDefined();
    expect(routes.sweep(now)).toEqual([]);
  });

  it('waits for the shared store write before answering, and for a route another replica wrote', async () => {
    const order: string[] = [];
    const memory = new MemoryStateStore();
    let listener: ((scope: string, key: string) => void) | undefined;
    const shared: StateStore = Object.assign(Object.create(memory) as StateStore, {
      watch: (l: (scope: string, key: string) => void) => {
        listener = l;
        return () => {
          listener = undefined;
        };
      },
    });
    const writer = new TaskRoutes(new MemoryStateStore(), async () => {
      order.push('settled');
    });
    await writer.open('mcp:jobs', handle, 'alice');
    order.push('opened');
    expect(order).toEqual(['settled', 'opened']);

    const reader = new TaskRoutes(shared);
    const found = reader.find('task-late', 'alice');
    // The route arrives from the other replica while the lookup waits.
    memory.set(TASK_ROUTES_SCOPE, 'task-late', {
      source: 'mcp:jobs',
      taskId: 's',
      owner: 'alice',
      expires: Date.now() + 60_000,
    });
    listener?.(TASK_ROUTES_SCOPE, 'task-late');
    expect(await found).toMatchObject({ taskId: 's' });
    expect(listener).toBeUndefined();
  });

  it('answers the task as a CreateTaskResult under the gateway id', () => {
    expect(taskAnswer({ ...handle, pollIntervalMs: 50 }, 'task-x')).toEqual({
      taskId: 'task-x',
      status: 'working',
      ttlMs: 1_000,
      pollIntervalMs: 50,
      resultType: 'task',
    });
  });
});

describe('declaringTasks', () => {
  const channel = {
    key: 'k',
    session: undefined as never,
    capabilities: () => ({ sampling: {} }),
    request: async () => 'asked',
    notify: async () => {},
    onClose: () => {},
    direct: { requestState: 's' },
  } as unknown as ClientChannel;
  const context = (capabilities: unknown) =>
    ({
      mcpReq: { envelope: { 'io.modelcontextprotocol/clientCapabilities': capabilities } },
    }) as unknown as ServerContext;

  it('adds the extension to what the channel declares when the client declared it, and delegates the rest', async () => {
    const declared = declaringTasks(channel, context({ extensions: { [TASKS_EXTENSION]: {} } }));
    expect(declared.capabilities()).toEqual({ sampling: {}, extensions: { [TASKS_EXTENSION]: {} } });
    expect(declared.key).toBe('k');
    expect(declared.direct).toEqual({ requestState: 's' });
    expect(await declared.request('x', undefined)).toBe('asked');
  });

  it('leaves the channel as it is for a client that did not declare it', () => {
    expect(declaringTasks(channel, context({ sampling: {} }))).toBe(channel);
    expect(declaringTasks(channel, context(undefined))).toBe(channel);
  });
});
