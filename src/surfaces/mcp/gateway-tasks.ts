import type { StateStore, StateValue } from '../../foundation/ports/state-store.js';
import type { InFlightCalls } from '../../foundation/util/in-flight-calls.js';
import { GATEWAY_TASK_SOURCE, type OwnTasks, type TaskRoutes } from './task-routes.js';

/** The state store's scope of the gateway's own tasks: their state, by the gateway's task id. */
export const GATEWAY_TASKS_SCOPE = 'gateway-tasks';

/** The metatools that run as tasks for a client that declared the Tasks extension: the long ones. */
export const TASK_METATOOLS: ReadonlySet<string> = new Set(['run_chain', 'execute_code', 'run_skill']);

/** How long a finished task of the gateway stays pollable (the `ttlMs` it announces). */
const TTL_MS = 15 * 60_000;

/** What a client polling often is told to wait between polls. */
const POLL_INTERVAL_MS = 500;

/** How often a replica refreshes the heartbeat of the tasks it runs, by default. */
export const TASK_HEARTBEAT_MS = 5_000;

/** A working task whose heartbeat is older than this many intervals lost its replica. */
const MISSED_HEARTBEATS = 3;

/**
 * The field of a task's state the replica running it refreshes. Not part of the extension's
 * `DetailedTask`: never shown to clients.
 */
const ALIVE_AT = 'aliveAt';

/** The JSON-RPC error of a task that failed because the replica running it is gone. */
const INTERNAL_ERROR = -32603;

/** Why a task failed when the replica running it shut down before it finished. */
export const REPLICA_STOPPED = 'The gateway replica running this task stopped before the task finished';

/** Why a task failed when the replica running it stopped refreshing its heartbeat (a crash). */
export const REPLICA_UNRESPONSIVE = 'The gateway replica running this task stopped answering';

/** A task's state as `tasks/get` answers it (a `DetailedTask`), plus the heartbeat. */
type TaskState = Record<string, StateValue>;

/** Options of {@link GatewayTasks}. */
export interface GatewayTasksOptions {
  /**
   * The calls in flight of the gateway: a task's call is one of them (a client waits on it), so a
   * shutdown's drain gives it the same grace period before cutting it.
   */
  calls?: InFlightCalls;
  /** How often the heartbeat of running tasks is refreshed, in ms (default {@link TASK_HEARTBEAT_MS}). */
  heartbeatMs?: number;
  /** The clock, epoch ms (tests). */
  now?: () => number;
  /** Resolves once this replica's writes reached the shared store (Redis); `close` awaits it. */
  settled?: () => Promise<void>;
}

/**
 * The gateway's own long calls (`run_chain`, `execute_code`, `run_skill`) as tasks of the Tasks
 * extension: the call runs on this replica after the client got its task; its state (working,
 * then completed with the metatool's result, failed, or cancelled) is written to the state store,
 * so `tasks/get` answers on any replica sharing it (Redis). `tasks/cancel` aborts the call when it
 * runs here, and otherwise marks the task cancelled in the store: the replica running it sees
 * the change (`watch`) and aborts it there.
 *
 * A task never stays `working` after its replica is gone. A replica that shuts down records its
 * unfinished tasks `failed` (after the drain's grace period, as any call in flight) before its
 * store closes. One that crashes cannot: while a task runs, its replica refreshes the task's
 * heartbeat (`aliveAt`) every `heartbeatMs`, and any replica reading a working task whose
 * heartbeat is older than three intervals records it `failed` and answers that.
 */
export class GatewayTasks implements OwnTasks {
  private readonly running = new Map<string, AbortController>();
  private readonly unwatch: (() => void) | undefined;
  private readonly heartbeatMs: number;
  private readonly now: () => number;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(
    private readonly store: StateStore,
    private readonly routes: TaskRoutes,
    private readonly options: GatewayTasksOptions = {},
  ) {
    this.heartbeatMs = options.heartbeatMs ?? TASK_HEARTBEAT_MS;
    this.now = options.now ?? Date.now;
    this.unwatch = store.watch?.((scope, key) => {
      // Cancelled on another replica, or given up there (a heartbeat seen late): stop the call.
      if (scope !== GATEWAY_TASKS_SCOPE || !this.running.has(key)) return;
      const status = this.read(key)?.status;
      if (status !== 'working') this.abort(key, status === 'cancelled' ? 'task cancelled' : `task ${status}`);
    });
  }

  /**
   * Starts `run` as a task of `owner`; resolves with its `CreateTaskResult` once the task is
   * recorded (and reached the shared store), while `run` goes on.
   */
  async start(
    owner: string,
    run: (signal: AbortSignal) => Promise<Record<string, unknown>>,
    now = new Date(this.now()),
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
    this.beating();
    const work = () => run(controller.signal);
    void (this.options.calls ? this.options.calls.run(controller, work) : work())
      .then(
        // An aborted call that still answers (a metatool's error result) was cut by a shutdown's
        // drain: a cancellation or a failure seen elsewhere left the task's status changed already.
        (result) =>
          this.finish(
            id,
            controller.signal.aborted
              ? stopped(REPLICA_STOPPED)
              : { status: 'completed', result: result as StateValue },
          ),
        (error: unknown) =>
          this.finish(
            id,
            controller.signal.aborted
              ? stopped(REPLICA_STOPPED)
              : stopped(error instanceof Error ? error.message : String(error)),
          ),
      )
      .finally(() => {
        this.running.delete(id);
        this.beating();
      });
    return { ...task, taskId: id, resultType: 'task' };
  }

  /**
   * The state of task `id` (a route of this gateway's, its owner checked by the caller), as the
   * client sees it. A working task whose replica stopped refreshing it is recorded failed first.
   */
  get(id: string): Record<string, unknown> | undefined {
    const task = this.current(id);
    if (!task) return undefined;
    const { [ALIVE_AT]: _heartbeat, ...visible } = task;
    return { ...visible, taskId: id };
  }

  /** Cancels task `id` if it still works: aborted here, or marked for the replica running it. */
  cancel(id: string): void {
    const task = this.current(id);
    if (task?.status !== 'working') return;
    this.store.set(GATEWAY_TASKS_SCOPE, id, this.updated(task, { status: 'cancelled' }));
    this.abort(id, 'task cancelled');
  }

  /**
   * Stops following the store and ends the tasks still running here: each is recorded failed (the
   * replica running it stopped) before its call is aborted, and the writes reach the shared store
   * before this resolves, so the store may close after it and another replica answers `failed`.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unwatch?.();
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const ended: [string, StateValue][] = [];
    for (const id of this.running.keys()) {
      const task = this.read(id);
      if (task?.status === 'working') ended.push([id, this.updated(task, stopped(REPLICA_STOPPED))]);
    }
    if (ended.length > 0) this.store.setMany(GATEWAY_TASKS_SCOPE, ended);
    for (const id of [...this.running.keys()]) this.abort(id, 'gateway closing');
    await this.options.settled?.();
  }

  /**
   * Forgets the task routes past their expiry and the state of the gateway tasks they led to
   * (`TaskRoutes.sweep`). Idempotent: every replica may sweep the shared store.
   */
  sweep(now = this.now()): void {
    for (const id of this.routes.sweep(now)) this.store.delete(GATEWAY_TASKS_SCOPE, id);
  }

  /** How many tasks run on this replica now. */
  get size(): number {
    return this.running.size;
  }

  private abort(id: string, reason: string): void {
    this.running.get(id)?.abort(new Error(reason));
  }

  private finish(id: string, outcome: TaskState): void {
    // Closed: the task was recorded failed already, and the store may be gone.
    if (this.closed) return;
    const task = this.read(id);
    // A cancelled task stays cancelled, whatever the aborted call made of it.
    if (task?.status !== 'working') return;
    this.store.set(GATEWAY_TASKS_SCOPE, id, this.updated(task, outcome));
  }

  /** Task `id` from the store; a working one whose heartbeat stopped is recorded failed here. */
  private current(id: string): TaskState | undefined {
    const task = this.read(id);
    if (task?.status !== 'working' || this.running.has(id)) return task;
    const beat = heartbeatOf(task);
    const silentFor = this.now() - beat;
    if (!(silentFor > MISSED_HEARTBEATS * this.heartbeatMs)) return task;
    const failed = this.updated(
      task,
      stopped(`${REPLICA_UNRESPONSIVE} (no heartbeat for ${Math.round(silentFor / 1000)} s)`),
    );
    this.store.set(GATEWAY_TASKS_SCOPE, id, failed);
    return failed;
  }

  /** `task` with `outcome`, updated now; the heartbeat goes with a task that stops working. */
  private updated(task: TaskState, outcome: TaskState): TaskState {
    const { [ALIVE_AT]: _heartbeat, ...rest } = task;
    return { ...rest, ...outcome, lastUpdatedAt: new Date(this.now()).toISOString() };
  }

  /** Keeps one timer refreshing the heartbeat while tasks run here, none otherwise. */
  private beating(): void {
    if (this.running.size === 0 || this.closed) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
      return;
    }
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs);
    // The heartbeat alone never keeps the process alive.
    this.heartbeat.unref?.();
  }

  /** One write for every task still working here: their heartbeat, now. */
  private beat(): void {
    const at = new Date(this.now()).toISOString();
    const beats: [string, StateValue][] = [];
    for (const id of this.running.keys()) {
      const task = this.read(id);
      if (task?.status === 'working') beats.push([id, { ...task, [ALIVE_AT]: at }]);
    }
    try {
      if (beats.length > 0) this.store.setMany(GATEWAY_TASKS_SCOPE, beats);
    } catch {
      // A store that refused one write (a busy file): the next beat writes again, well in time.
    }
  }

  private read(id: string): TaskState | undefined {
    const value = this.store.get(GATEWAY_TASKS_SCOPE, id);
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array)
      return undefined;
    return value;
  }
}

/** A failed task's outcome: a JSON-RPC internal error saying why. */
function stopped(message: string): TaskState {
  return { status: 'failed', error: { code: INTERNAL_ERROR, message } };
}

/**
 * When the replica running `task` last showed it was alive, epoch ms: its heartbeat, or for a
 * record written before heartbeats (none), its last update or creation.
 */
function heartbeatOf(task: TaskState): number {
  for (const field of [ALIVE_AT, 'lastUpdatedAt', 'createdAt']) {
    const value = task[field];
    const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (!Number.isNaN(at)) return at;
  }
  return Number.NaN;
}
