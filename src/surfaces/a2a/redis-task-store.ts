import { deserialize, serialize } from 'node:v8';
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { integerAtLeast } from '../../foundation/util/option-checks.js';
import type { RedisConnection } from '../../operations/state/redis-connection.js';
import { RedisScript } from '../../operations/state/redis-script.js';
import { DEFAULT_MAX_TASKS } from './bounded-task-store.js';
import { listTasks, taskKey } from './task-list.js';

/*
 * KEYS: 1 a hash task key → task, 2 a sorted set of task keys by save order. ARGV: key, task,
 * maxTasks. Saves and drops the least recently saved tasks past the bound, in one step.
 */
const SAVE = new RedisScript(`
local seq = redis.call('HINCRBY', KEYS[3], 'seq', 1)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], seq, ARGV[1])
local excess = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if excess > 0 then
  for _, old in ipairs(redis.call('ZPOPMIN', KEYS[2], excess)) do
    if _ % 2 == 1 then redis.call('HDEL', KEYS[1], old) end
  end
end
return 1
`);

/**
 * The A2A task store in Redis, shared by every gateway: a task saved by the gateway that ran it
 * is found by `tasks/get` or `tasks/list` on any other. The same rules as {@link BoundedTaskStore}
 * (per tenant and caller, the `maxTasks` most recently saved kept, the same listing). Tasks are
 * kept in the structured-clone format (`node:v8`), so byte parts stay bytes. A failing Redis
 * rejects, and the SDK answers the request with an internal error: the task of a call that ran
 * while Redis was down is not kept.
 */
export class RedisTaskStore implements TaskStore {
  private readonly keys: string[];
  private readonly maxTasks: number;

  constructor(
    private readonly connection: RedisConnection,
    maxTasks = DEFAULT_MAX_TASKS,
  ) {
    this.maxTasks = integerAtLeast(maxTasks, 1, 'A2A maxTasks');
    const base = `${connection.prefix}a2a:`;
    this.keys = [`${base}tasks`, `${base}order`, `${base}counters`];
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const raw = await this.connection.client.hgetBuffer(this.keys[0]!, taskKey(context, taskId));
    return raw ? (deserialize(raw) as Task) : undefined;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    await SAVE.run(this.connection.client, this.keys, [
      taskKey(context, task.id),
      serialize(task),
      this.maxTasks,
    ]);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const prefix = taskKey(context, '');
    const tasks: Task[] = [];
    let cursor = '0';
    do {
      const [next, fields] = await this.connection.client.hscanBuffer(
        this.keys[0]!,
        cursor,
        'MATCH',
        `${escapeGlob(prefix)}*`,
        'COUNT',
        500,
      );
      cursor = next.toString();
      for (let i = 1; i < fields.length; i += 2) tasks.push(deserialize(fields[i]!) as Task);
    } while (cursor !== '0');
    return listTasks(tasks, params);
  }
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
