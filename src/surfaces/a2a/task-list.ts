import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { resolveUserScope, type ServerCallContext } from '@a2a-js/sdk/server';

const DEFAULT_LIST_PAGE = 50;
const MAX_LIST_PAGE = 100;

/**
 * `tasks/list` over the tasks of one caller, as every task store answers it: newest status first,
 * filtered by the request, one page; `pageToken` is the position after the previous page's last task.
 */
export function listTasks(tasks: readonly Task[], params: ListTasksRequest): ListTasksResponse {
  const after = params.statusTimestampAfter ? Date.parse(params.statusTimestampAfter) : undefined;
  const matching = tasks
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

/** A task's key in a store: tenant, caller and id, so that nobody reads another's tasks. */
export function taskKey(context: ServerCallContext, taskId: string): string {
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
