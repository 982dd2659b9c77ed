import type { Logger } from '../../foundation/ports/logger.js';
import { taskRequest } from '../../sources/mcp/downstream-tasks.js';
import type { PassthroughServer } from './passthrough.js';
import { GATEWAY_TASK_SOURCE, type OwnTasks, type TaskRoutes } from './task-routes.js';

/** A gateway task's state is read from the state store (a local copy with Redis): cheap to read often. */
const GATEWAY_POLL_MS = 250;
/** A server's task is polled at the interval it suggests, kept within these bounds. */
const MIN_SERVER_POLL_MS = 100;
const MAX_SERVER_POLL_MS = 5_000;
/** Errors in a row after which a server's task is no longer watched (it is gone, or the server is). */
const MAX_FAILURES = 3;

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** The watch of one listen stream's tasks. */
export interface TaskWatch {
  /** The gateway task ids it watches: those of the caller that exist. */
  honored: string[];
  stop(): void;
}

/**
 * Status notifications of the Tasks extension (`notifications/tasks`) for a 2026-07-28 client's
 * `subscriptions/listen` stream that named task ids (`taskIds`): each task of the caller is
 * watched, and every change of its status (or of its `statusMessage`, `lastUpdatedAt`) is told
 * with the whole task as `tasks/get` would answer it at that moment, under the gateway's id —
 * first its current state, then each change, until it ends.
 *
 * A server is not required to notify (the extension makes it optional), so a server's task is
 * watched by polling `tasks/get` on the gateway's shared connection at the interval the server
 * suggests; a task the gateway runs itself is read from the state store, which any replica shares
 * with Redis. Task ids that are unknown, expired or another caller's are left out of `honored`
 * (and out of the acknowledgement) exactly as `tasks/get` answers them "not found".
 */
export class TaskNotifications {
  constructor(
    private readonly routes: TaskRoutes,
    private readonly gateway: OwnTasks,
    private readonly servers: () => readonly PassthroughServer[],
    private readonly log: Logger,
  ) {}

  async watch(
    owner: string,
    taskIds: readonly string[],
    emit: (task: Record<string, unknown>) => void,
  ): Promise<TaskWatch> {
    const timers = new Set<NodeJS.Timeout>();
    let stopped = false;
    const honored: string[] = [];
    const every = (ms: number, tick: () => Promise<number | undefined>) => {
      const run = () => {
        timers.delete(timer);
        if (stopped) return;
        void tick().then((next) => {
          if (next !== undefined && !stopped) every(next, tick);
        });
      };
      const timer = setTimeout(run, ms);
      timer.unref();
      timers.add(timer);
    };
    for (const id of new Set(taskIds)) {
      const route = await this.routes.find(id, owner);
      if (!route) continue;
      honored.push(id);
      const changes = changeFilter(emit);
      if (route.source === GATEWAY_TASK_SOURCE) {
        every(0, async () => {
          const task = this.gateway.get(id);
          if (!task) return undefined;
          changes(task);
          return TERMINAL.has(String(task.status)) ? undefined : GATEWAY_POLL_MS;
        });
        continue;
      }
      let failures = 0;
      every(0, async () => {
        const target = this.servers().find((s) => s.server.sourceId === route.source)?.server;
        try {
          if (!target) throw new Error(`server of ${route.source} is gone`);
          const answer = await target.withClient(undefined, (client) =>
            taskRequest(client, 'tasks/get', { taskId: route.taskId }),
          );
          failures = 0;
          const { resultType: _type, ...task } = answer;
          changes({ ...task, taskId: id });
          if (TERMINAL.has(String(task.status))) return undefined;
          return serverInterval(task.pollIntervalMs);
        } catch (error) {
          failures++;
          if (failures < MAX_FAILURES) return MAX_SERVER_POLL_MS;
          this.log.debug({ task: id, err: (error as Error).message }, 'task status no longer watched');
          return undefined;
        }
      });
    }
    return {
      honored,
      stop: () => {
        stopped = true;
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
      },
    };
  }
}

/** `emit` for the states that differ from the last one told (polls repeat unchanged states). */
function changeFilter(emit: (task: Record<string, unknown>) => void) {
  let last: string | undefined;
  return (task: Record<string, unknown>) => {
    const mark = JSON.stringify([task.status, task.statusMessage, task.lastUpdatedAt]);
    if (mark === last) return;
    last = mark;
    emit(task);
  };
}

function serverInterval(suggested: unknown): number {
  if (typeof suggested !== 'number' || !Number.isFinite(suggested)) return 1_000;
  return Math.min(MAX_SERVER_POLL_MS, Math.max(MIN_SERVER_POLL_MS, suggested));
}
