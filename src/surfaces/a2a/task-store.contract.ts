import { type Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';

/** Builds an empty store that keeps at most `maxTasks` tasks. */
export type TaskStoreFactory = (maxTasks: number) => TaskStore | Promise<TaskStore>;

function contextOf(userName: string, tenant?: string): ServerCallContext {
  return new ServerCallContext({
    user: { isAuthenticated: true, userName },
    ...(tenant === undefined ? {} : { tenant }),
  });
}

function task(id: string, options: { contextId?: string; state?: TaskState; at?: string } = {}): Task {
  return {
    id,
    contextId: options.contextId ?? 'ctx',
    status: {
      state: options.state ?? TaskState.TASK_STATE_COMPLETED,
      timestamp: options.at ?? '2026-01-01T00:00:00.000Z',
      message: undefined,
    },
    artifacts: [
      {
        artifactId: 'a',
        name: 'result',
        description: '',
        parts: [{ content: { $case: 'text', value: id } }],
      },
    ],
    history: [],
    metadata: {},
  } as unknown as Task;
}

/**
 * The behaviour every A2A `TaskStore` of the gateway must have (the SDK's interface): tasks kept
 * per tenant and caller, copies handed out, the most recently saved `maxTasks` kept, and
 * `tasks/list` newest first, filtered and paged.
 */
export function runTaskStoreContract(label: string, factory: TaskStoreFactory): void {
  describe(`TaskStore contract: ${label}`, () => {
    it('loads what was saved, as a copy, and nothing for an unknown id', async () => {
      const store = await factory(10);
      const alice = contextOf('alice');
      expect(await store.load('missing', alice)).toBeUndefined();
      const saved = task('t1');
      await store.save(saved, alice);
      saved.contextId = 'changed after save';
      const loaded = await store.load('t1', alice);
      expect(loaded).toEqual(task('t1'));
      loaded!.contextId = 'changed after load';
      expect((await store.load('t1', alice))?.contextId).toBe('ctx');
    });

    it("keeps each caller's and tenant's tasks apart", async () => {
      const store = await factory(10);
      await store.save(task('t1'), contextOf('alice'));
      expect(await store.load('t1', contextOf('bob'))).toBeUndefined();
      expect(await store.load('t1', contextOf('alice', 'other-tenant'))).toBeUndefined();
      expect((await store.list({} as never, contextOf('bob'))).tasks).toEqual([]);
    });

    it('replaces a task saved again, and keeps only the most recently saved maxTasks', async () => {
      const store = await factory(2);
      const alice = contextOf('alice');
      await store.save(task('t1'), alice);
      await store.save(task('t2'), alice);
      await store.save(task('t1', { state: TaskState.TASK_STATE_FAILED }), alice);
      await store.save(task('t3'), alice);
      expect(await store.load('t2', alice)).toBeUndefined();
      expect((await store.load('t1', alice))?.status?.state).toBe(TaskState.TASK_STATE_FAILED);
      expect(await store.load('t3', alice)).toBeDefined();
    });

    it('lists newest first, filtered by context and state, one page at a time', async () => {
      const store = await factory(10);
      const alice = contextOf('alice');
      await store.save(task('old', { at: '2026-01-01T00:00:01.000Z' }), alice);
      await store.save(task('mid', { at: '2026-01-01T00:00:02.000Z', contextId: 'other' }), alice);
      await store.save(
        task('new', { at: '2026-01-01T00:00:03.000Z', state: TaskState.TASK_STATE_FAILED }),
        alice,
      );
      const all = await store.list({} as never, alice);
      expect(all.tasks.map((t) => t.id)).toEqual(['new', 'mid', 'old']);
      expect(all.tasks[0]?.artifacts).toEqual([]);
      expect(all.totalSize).toBe(3);
      const byContext = await store.list({ contextId: 'other' } as never, alice);
      expect(byContext.tasks.map((t) => t.id)).toEqual(['mid']);
      const byState = await store.list({ status: TaskState.TASK_STATE_FAILED } as never, alice);
      expect(byState.tasks.map((t) => t.id)).toEqual(['new']);
      const first = await store.list({ pageSize: 2 } as never, alice);
      expect(first.tasks.map((t) => t.id)).toEqual(['new', 'mid']);
      const second = await store.list({ pageSize: 2, pageToken: first.nextPageToken } as never, alice);
      expect(second.tasks.map((t) => t.id)).toEqual(['old']);
      expect(second.nextPageToken).toBe('');
    });
  });
}
