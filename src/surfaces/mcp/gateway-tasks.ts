import type { StateStore, StateValue } from '../../foundation/ports/state-store.js';
import { GATEWAY_TASK_SOURCE, type OwnTasks, type TaskRoutes } from './task-routes.js';

/** The state store's scope of the gateway's own tasks: their state, by the gateway's task id. */
export const GATEWAY_TASKS_SCOPE = 'gateway-tasks';

/** The metatools that run as tasks for a client that declared the Tasks extension: the long ones. */
export const TASK_METATOOLS: ReadonlySet<string> = new Set(['run_chain', 'execute_code', 'run_skill']);

/** How long a finished task of the gateway stays pollable (the `ttlMs` it announces). */
const TTL_MS = 15 * 60_000;

/** What a client polling often is told to wait between polls. */
const POLL_INTERVAL_MS = 500;

/** A task's state as `tasks/get` answers it (a `DetailedTask`). */
type TaskState = Record<string, StateValue>;

/**
 * The gateway's own long calls (`run_chain`, `execute_code`, `run_skill`) as tasks of the Tasks
 * extension: the call runs on this replica after the client got its task; its state (working,
 * then completed with the metatool's result, or cancelled) is written to the state store, so
 * `tasks/get` answers on any replica sharing it (Redis). `tasks/cancel` aborts the call when it
 * runs here, and otherwise marks the task cancelled in the store: the replica running it sees
 * the change (`watch`) and aborts it there.
 */
export class GatewayTasks implements OwnTasks {
  private readonly running = new Map<string, AbortController>();
  private readonly unwatch: (() => void) | undefined;

  constructor(
    private readonly store: StateStore,
    private readonly routes: TaskRoutes,
  ) {
    this.unwatch = store.watch?.((scope, key) => {
      if (scope === GATEWAY_TASKS_SCOPE && this.read(key)?.status === 'cancelled') this.abort(key);
    });
  }

  /**
   * Starts `run` as a task of `owner`; resolves with its `CreateTaskResult` once the task is
   * recorded (and reached the shared store), while `run` goes on.
   */
  async start(
    owner: string,
    run: (signal: AbortSignal) => Promise<Record<string, unknown>>,
    now = new Date(),
  ): Promise<Record<string, unknown>> {
    const at = now.toISOString();
    const task: TaskState = {
      status: 'working',
      createdAt: at,
      lastUpdatedAt: at,
      ttlMs: TTL_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
    const id = await this.routes.open(
      GATEWAY_TASK_SOURCE,
      { taskId: '', status: 'working', ttlMs: TTL_MS },
      owner,
      now.getTime(),
      (id) => this.store.set(GATEWAY_TASKS_SCOPE, id, task),
    );
    const controller = new AbortController();
    this.running.set(id, controller);
    void run(controller.signal)
      .then(
        (result) => this.finish(id, { status: 'completed', result: result as StateValue }),
        (error: unknown) =>
          this.finish(id, {
            status: 'failed',
            error: { code: -32603, message: error instanceof Error ? error.message : String(error) },
          }),
      )
      .finally(() => this.running.delete(id));
    return { ...task, taskId: id, resultType: 'task' };
  }

  /** The state of task `id` (a route of this gateway's, its owner checked by the caller). */
  get(id: string): Record<string, unknown> | undefined {
    const task = this.read(id);
    return task ? { ...task, taskId: id } : undefined;
  }

  /** Cancels task `id` if it still works: aborted here, or marked for the replica running it. */
  cancel(id: string): void {
    const task = this.read(id);
    if (task?.status !== 'working') return;
    this.store.set(GATEWAY_TASKS_SCOPE, id, {
      ...task,
      status: 'cancelled',
      lastUpdatedAt: new Date().toISOString(),
    });
    this.abort(id);
  }

  close(): void {
    this.unwatch?.();
    for (const controller of this.running.values()) controller.abort(new Error('gateway closing'));
  }

  private abort(id: string): void {
    this.running.get(id)?.abort(new Error('task cancelled'));
  }

  private finish(id: string, outcome: TaskState): void {
    const task = this.read(id);
    // A cancelled task stays cancelled, whatever the aborted call made of it.
    if (task?.status !== 'working') return;
    this.store.set(GATEWAY_TASKS_SCOPE, id, { ...task, ...outcome, lastUpdatedAt: new Date().toISOString() });
  }

  private read(id: string): TaskState | undefined {
    const value = this.store.get(GATEWAY_TASKS_SCOPE, id);
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array)
      return undefined;
    return value;
  }
}
