import type { Client } from '@modelcontextprotocol/client';
import { z } from 'zod';

/** The Tasks extension (SEP-2663): a server may answer `tools/call` with a task to poll. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Where a downstream server's task answer travels inside the gateway: the `_meta` of an otherwise
 * empty tool result. The gateway's own key, removed before any client sees the result.
 */
export const TASK_HANDLE_META_KEY = 'aperture/task-handle';

/** A downstream server's task as it answered it (`CreateTaskResult` without `resultType`). */
export interface TaskHandle {
  taskId: string;
  status: string;
  [field: string]: unknown;
}

/**
 * `message` with a task answer (`resultType: "task"`) carried as a complete tool result.
 *
 * The SDK client refuses any result type but `complete` and `input_required` ("Unsupported result
 * type 'task'"), so a task answer would fail the call before the gateway saw it. It is rewritten
 * where the transport hands the message to the SDK: an empty result (`content: []`) whose `_meta`
 * holds the task under {@link TASK_HANDLE_META_KEY}; the MCP surface turns it back into the task
 * (under the gateway's own id) for the client (`taskHandleOf`).
 */
export function carryingTaskAnswer<M>(message: M): M {
  const result = (message as { id?: unknown; result?: unknown }).result;
  if (
    (message as { id?: unknown }).id === undefined ||
    typeof result !== 'object' ||
    result === null ||
    (result as { resultType?: unknown }).resultType !== 'task'
  )
    return message;
  const { resultType: _type, _meta, content: _content, ...task } = result as Record<string, unknown>;
  if (typeof task.taskId !== 'string') return message;
  return {
    ...message,
    result: {
      resultType: 'complete',
      content: [],
      _meta: { ...((_meta as Record<string, unknown> | undefined) ?? {}), [TASK_HANDLE_META_KEY]: task },
    },
  };
}

/** The task a tool result carries (`carryingTaskAnswer`), or undefined for a plain result. */
export function taskHandleOf(result: unknown): TaskHandle | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const meta = (result as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const handle = (meta as Record<string, unknown>)[TASK_HANDLE_META_KEY];
  if (typeof handle !== 'object' || handle === null) return undefined;
  return typeof (handle as { taskId?: unknown }).taskId === 'string' ? (handle as TaskHandle) : undefined;
}

/** Any result: a task's state, or the empty acknowledgement of `tasks/update` and `tasks/cancel`. */
const TaskMethodResult = z.looseObject({});

/** The methods of the extension a client sends about one task. */
export type TaskMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel';

/**
 * Sends `method` about the server's own task `params.taskId` on `client`. The SDK knows these
 * methods only as the extension's (they left the core revision), so they go with a result schema
 * of their own; its result comes back as the server made it (without `resultType`).
 */
export async function taskRequest(
  client: Client,
  method: TaskMethod,
  params: Record<string, unknown>,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  return (await client.request(
    { method, params } as never,
    TaskMethodResult,
    signal ? { signal } : {},
  )) as Record<string, unknown>;
}
