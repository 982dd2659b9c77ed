import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { resolveUserScope, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { integerAtLeast } from '../../foundation/option-checks.js';

/** Default number of tasks kept. */
export const DEFAULT_MAX_TASKS = 1000;
const DEFAULT_LIST_PAGE = 50;
const MAX_LIST_PAGE = 100;

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
    const task = this.tasks.get(keyOf(context, taskId));
    return task === undefined ? undefined : structuredClone(task);
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const key = keyOf(context, task.id);
    this.tasks.delete(key);
    this.tasks.set(key, structuredClone(task));
    for (const oldest of this.tasks.keys()) {
      if (this.tasks.size <= this.maxTasks) break;
      this.tasks.delete(oldest);
    }
  }

  /** Newest status first; `pageToken` is the position after the previous page's last task. */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const prefix = keyOf(context, '');
    const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
    const matching = [...this.tasks]
      .filter(([key]) => key.startsWith(prefix))
      .map(([, task]) => task)
      .filter((task) => !params.contextId || task.contextId === params.contextId)
      .filter((task) => !params.status || task.status?.state === params.status)
      .filter((task) => after === undefined || Date.parse(task.status?.timestamp ?? '') > after)
      .sort((a, b) => compareKeys(sortKey(b), sortKey(a)));
    const pageSize = Math.min(params.pageSize || DEFAULT_LIST_PAGE, MAX_LIST_PAGE);
    const start = params.pageToken ? startAfter(matching, decodeToken(params.pageToken)) : 0;
    const page = matching.slice(start, start + pageSize);
    const last = page[page.length - 1];
    return {
      tasks: page.map((task) => trimmed(task, params)),
      nextPageToken: last && start + pageSize < matching.length ? encodeToken(sortKey(last)) : '',
      pageSize,
      totalSize: matching.length,
    };
  }
}

function keyOf(context: ServerCallContext, taskId: string): string {
  return `${context.tenant ?? ''}\u0000${resolveUserScope(context)}\u0000${taskId}`;
}

type SortKey = [timestamp: string, id: string];

function sortKey(task: Task): SortKey {
  return [task.status?.timestamp ?? '', task.id];
}

function compareKeys(a: SortKey, b: SortKey): number {
  return a[0] === b[0] ? a[1].localeCompare(b[1]) : a[0].localeCompare(b[0]);
}

function startAfter(tasks: readonly Task[], key: SortKey): number {
  // Sorted newest first, so the next page starts at the first task older than the token.
  const index = tasks.findIndex((task) => compareKeys(sortKey(task), key) < 0);
  return index === -1 ? tasks.length : index;
}

function encodeToken(key: SortKey): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeToken(token: string): SortKey {
  try {
    const value: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2) {
      const [timestamp, id] = value as unknown[];
      if (typeof timestamp === 'string' && typeof id === 'string') return [timestamp, id];
    }
  } catch {
    // Reported below.
  }
  throw new RequestMalformedError('pageToken is not a token from a previous page');
}

function trimmed(task: Task, params: ListTasksRequest): Task {
  const copy = structuredClone(task);
  if (!params.includeArtifacts) copy.artifacts = [];
  if (params.historyLength !== undefined) {
    copy.history = params.historyLength === 0 ? [] : copy.history.slice(-params.historyLength);
  }
  return copy;
}
