import { setTimeout as pause } from 'node:timers/promises';
import type { Client } from '@modelcontextprotocol/client';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { type ClientSdk, clientSdk, loadedClientSdk } from './client-sdk.js';
import { TASKS_EXTENSION, type TaskHandle, taskRequest } from './downstream-tasks.js';
import { answerRound } from './modern-requests.js';

/** Polls no faster than this, whatever the server suggests (a server may suggest 0). */
const MIN_POLL_MS = 20;
/** Nor slower than this: a call waits at most this long past its task's end. */
const MAX_POLL_MS = 5_000;
/** Until the server suggests an interval. */
const DEFAULT_POLL_MS = 200;

/** Whether `channel`'s client declared the Tasks extension (it takes a task handle itself). */
export function takesTasks(channel: ClientChannel | undefined): boolean {
  return channel?.capabilities().extensions?.[TASKS_EXTENSION] !== undefined;
}

/** Whether the server of `client` declared the Tasks extension (it may answer a task). */
export function offersTasks(client: Client): boolean {
  const extensions = client.getServerCapabilities()?.extensions as Record<string, unknown> | undefined;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * The final result of a task the server answered to a call whose caller cannot take a task (a
 * 2025 client, a client that did not declare the extension, a `run_chain` or `execute_code` step,
 * REST, A2A, the CLI): the gateway declared the extension on the caller's behalf and now polls
 * `tasks/get` at the server's suggested interval until the task ends, so the caller gets the tool
 * result it would have got from a server that answered at once.
 *
 * - `completed`: its `result`, as the server inlined it (a tool error stays `isError: true`).
 * - `failed`: the task's JSON-RPC error, thrown as the server's error.
 * - `cancelled` (by the server): an error saying so.
 * - `input_required`: each of its `inputRequests` asked of `channel`'s client as the request it
 *   knows, the answers sent with `tasks/update`; a client that cannot answer fails the call.
 * - The call aborted (the client cancelled, the pipeline's timeout): `tasks/cancel` is sent, not
 *   awaited, and the abort propagates.
 */
export async function awaitTask(
  client: Client,
  handle: TaskHandle,
  signal: AbortSignal,
  channel: ClientChannel | undefined,
): Promise<Record<string, unknown>> {
  const sdk = loadedClientSdk() ?? (await clientSdk());
  const { ProtocolError, ProtocolErrorCode } = sdk;
  const taskId = handle.taskId;
  let interval = pollInterval(handle.pollIntervalMs);
  /** `inputRequests` keys answered already: a poll repeats them until the server took the answers. */
  const answered = new Set<string>();
  const cancel = () => {
    void taskRequest(client, 'tasks/cancel', { taskId }).catch(() => {});
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    let task: Record<string, unknown> = handle;
    for (;;) {
      switch (task.status) {
        case 'completed':
          return resultOf(task, sdk);
        case 'failed': {
          const error = (task.error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
          throw new ProtocolError(
            typeof error.code === 'number' ? error.code : ProtocolErrorCode.InternalError,
            typeof error.message === 'string' ? error.message : 'the task failed',
            error.data,
          );
        }
        case 'cancelled':
          throw new ProtocolError(
            ProtocolErrorCode.InternalError,
            `the server cancelled task ${taskId}${typeof task.statusMessage === 'string' ? `: ${task.statusMessage}` : ''}`,
          );
        case 'input_required': {
          const fresh = freshRequests(task.inputRequests, answered);
          if (fresh) {
            const inputResponses = await answerRound({ inputRequests: fresh } as never, channel, signal, sdk);
            for (const key of Object.keys(fresh)) answered.add(key);
            await taskRequest(client, 'tasks/update', { taskId, inputResponses }, signal);
          }
          break;
        }
      }
      // The call's failure is the abort's reason (`callFailure`), not the timer's AbortError.
      await pause(interval, undefined, { signal });
      task = await taskRequest(client, 'tasks/get', { taskId }, signal);
      interval = pollInterval(task.pollIntervalMs, interval);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/** A completed task's `result`; a task that says completed without one is the server's fault. */
function resultOf(task: Record<string, unknown>, { ProtocolError, ProtocolErrorCode }: ClientSdk) {
  const result = task.result;
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `task ${String(task.taskId)} completed without a result`,
    );
  }
  return result as Record<string, unknown>;
}

/** The `inputRequests` not answered yet, or undefined when none is new. */
function freshRequests(
  requests: unknown,
  answered: ReadonlySet<string>,
): Record<string, unknown> | undefined {
  if (typeof requests !== 'object' || requests === null) return undefined;
  const fresh = Object.entries(requests).filter(([key]) => !answered.has(key));
  return fresh.length > 0 ? Object.fromEntries(fresh) : undefined;
}

function pollInterval(suggested: unknown, previous = DEFAULT_POLL_MS): number {
  if (typeof suggested !== 'number' || !Number.isFinite(suggested)) return previous;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, suggested));
}
