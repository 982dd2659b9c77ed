import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { integerAtLeast } from '../../foundation/util/option-checks.js';
import { listTasks, taskKey } from './task-list.js';

/** Default number of tasks kept. */
export const DEFAULT_MAX_TASKS = 1000;

/**
 * An in-memory task store that keeps the `maxTasks` most recently updated tasks. The SDK's
 * `InMemoryTaskStore` never forgets a task, and every task holds its tool result: a long-running
 * gateway would grow without bound. Tasks are scoped by tenant and caller, as the SDK's are.
 */
export class BoundedTaskStore implements TaskStore {
  /** Map order is update order: the first entry is the least recently saved. */
  private readonly tasks = new Map<string, Task>();

  constructor(private readonly maxTasks = DEFAULT_MAX_TASKS) {
    integerAtLeast(maxTasks, 1, 'A2A maxTasks');
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = this.tasks.get(taskKey(context, taskId));
    return task === undefined ? undefined : structuredClone(task);
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const key = taskKey(context, task.id);
    this.tasks.delete(key);
    this.tasks.set(key, structuredClone(task));
    for (const oldest of this.tasks.keys()) {
      if (this.tasks.size <= this.maxTasks) break;
      this.tasks.delete(oldest);
    }
  }

  /** Newest status first; `pageToken` is the position after the previous page's last task. */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const prefix = taskKey(context, '');
    return listTasks(
      [...this.tasks].filter(([key]) => key.startsWith(prefix)).map(([, task]) => task),
      params,
    );
  }
}
