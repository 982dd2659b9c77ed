import { randomBytes } from 'node:crypto';
import { ProtocolErrorCode, type Server, type ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import type { StateStore } from '../../foundation/ports/state-store.js';
import {
  TASKS_EXTENSION,
  type TaskHandle,
  type TaskMethod,
  taskRequest,
} from '../../sources/mcp/downstream-tasks.js';
import type { PassthroughServer } from './passthrough.js';
import { protocolError } from './protocol-error.js';

/** The state store's scope of task routes: the gateway's task id → where the task lives. */
export const TASK_ROUTES_SCOPE = 'task-routes';

/** How long a lookup waits for a route another replica wrote and this one has not taken in yet. */
const REPLICATION_WAIT_MS = 2_000;

/** Routes are kept this long after the task's TTL (or this long at all, for an unlimited one). */
const ROUTE_GRACE_MS = 24 * 3_600_000;

/** The `source` of a route to a task the gateway runs itself (not a downstream server's). */
export const GATEWAY_TASK_SOURCE = 'gateway';

/** The tasks the gateway runs itself, as the routes serve them (`GatewayTasks`). */
export interface OwnTasks {
  /** The state of task `id` as `tasks/get` answers it; undefined when gone. */
  get(id: string): Record<string, unknown> | undefined;
  /** Cancels task `id` if it still works. */
  cancel(id: string): void;
}

/** Where one task handed to a client lives. */
export interface TaskRoute {
  /** The catalog source of the server that owns the task (`mcp:<name>`). */
  source: string;
  /** The server's own id of the task. */
  taskId: string;
  /** The caller that started it (`sessionOwner`): only it may poll, update or cancel it. */
  owner: string;
  /** Epoch ms after which the route is forgotten. */
  expires: number;
}

/**
 * The tasks the gateway handed to clients, by the gateway's own task id, in the state store: a
 * client polls, updates and cancels a task by that id on whatever replica its request lands on
 * (with `state.driver: redis` every replica reads the same routes), and the request goes to the
 * server that owns it with the server's id. The gateway's ids are its own (random, 128 bits), so a
 * client never learns a server's ids nor reaches a task of another server or caller by guessing.
 */
export class TaskRoutes {
  constructor(
    private readonly store: StateStore,
    /** Resolves once this replica's writes reached the shared store (Redis); absent: at once. */
    private readonly settled?: () => Promise<void>,
  ) {}

  /** Records a task the server `source` answered for `owner`; its id for the client. */
  async open(
    source: string,
    handle: TaskHandle,
    owner: string,
    now = Date.now(),
    /** Writes what else belongs to the task before the writes are awaited (the gateway's own tasks). */
    alongside?: (id: string) => void,
  ): Promise<string> {
    const id = `task-${randomBytes(16).toString('hex')}`;
    const ttl = typeof handle.ttlMs === 'number' ? handle.ttlMs : 0;
    const route: TaskRoute = { source, taskId: handle.taskId, owner, expires: now + ttl + ROUTE_GRACE_MS };
    alongside?.(id);
    this.store.set(TASK_ROUTES_SCOPE, id, { ...route });
    // The spec wants a task pollable once its id is out: another replica must be able to read it.
    await this.settled?.();
    return id;
  }

  /**
   * The route of `id` for `owner`; undefined when unknown, expired or another caller's. A route
   * written by another replica a moment ago may not be here yet: the lookup waits for it a little.
   */
  async find(id: string, owner: string, now = Date.now()): Promise<TaskRoute | undefined> {
    const route = this.read(id) ?? (await this.arriving(id));
    if (!route || route.owner !== owner) return undefined;
    if (route.expires < now) {
      this.store.delete(TASK_ROUTES_SCOPE, id);
      return undefined;
    }
    return route;
  }

  /**
   * Forgets every route past its expiry (a lookup forgets only the one it reads); returns the
   * forgotten ids, so what belongs to them (a gateway task's state) goes too. Idempotent: every
   * replica may sweep the shared store.
   */
  sweep(now = Date.now()): string[] {
    const forgotten: string[] = [];
    for (const [id, value] of this.store.entries(TASK_ROUTES_SCOPE)) {
      const expires = (value as { expires?: unknown } | null)?.expires;
      if (typeof expires === 'number' && expires >= now) continue;
      this.store.delete(TASK_ROUTES_SCOPE, id);
      forgotten.push(id);
    }
    return forgotten;
  }

  private read(id: string): TaskRoute | undefined {
    const value = this.store.get(TASK_ROUTES_SCOPE, id);
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array)
      return undefined;
    return value as unknown as TaskRoute;
  }

  /** Waits for `id` to arrive from another replica (only a shared store can bring it). */
  private arriving(id: string): Promise<TaskRoute | undefined> {
    const watch = this.store.watch?.bind(this.store);
    if (!watch) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const done = (route: TaskRoute | undefined) => {
        clearTimeout(timer);
        stop();
        resolve(route);
      };
      const stop = watch((scope, key) => {
        if (scope === TASK_ROUTES_SCOPE && key === id) done(this.read(id));
      });
      const timer = setTimeout(() => done(this.read(id)), REPLICATION_WAIT_MS);
    });
  }
}

/** The task a client sees: the server's task under the gateway's id, as a `CreateTaskResult`. */
export function taskAnswer(handle: TaskHandle, id: string): Record<string, unknown> {
  return { ...handle, taskId: id, resultType: 'task' };
}

const TaskParams = z.looseObject({ taskId: z.string() });

/**
 * Serves `tasks/get`, `tasks/update` and `tasks/cancel` (the Tasks extension) on a session's
 * server, declaring the extension when a downstream server it relays declares it: each is sent to the server that owns the task, with its own id, on the shared connection
 * of that server; the answer comes back with the gateway's id. An id that is unknown, expired or
 * another caller's answers -32602, as the extension says for a task that does not exist.
 */
export function serveTaskRoutes(
  server: Server,
  routes: TaskRoutes,
  servers: readonly PassthroughServer[],
  owner: string,
  gateway?: OwnTasks,
): void {
  // Declared when a server the session relays declares it or the gateway runs tasks of its own
  // (call before connecting, as the skills).
  if (gateway || servers.some((s) => s.server.capabilities()?.extensions?.[TASKS_EXTENSION] !== undefined)) {
    server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } } as Parameters<
      Server['registerCapabilities']
    >[0]);
  }
  const relay = (method: TaskMethod) => async (params: z.infer<typeof TaskParams>, ctx: ServerContext) => {
    const route = await routes.find(params.taskId, owner);
    if (route?.source === GATEWAY_TASK_SOURCE && gateway) return gatewayTask(gateway, method, params.taskId);
    const target = route && servers.find((s) => s.server.sourceId === route.source)?.server;
    if (!route || !target) {
      throw protocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: Task not found`);
    }
    const { taskId: _id, _meta: _ignored, ...rest } = params;
    // The SDK lifts a request's `inputResponses` out of its params (the revision reserves the name
    // for retried requests): `tasks/update` carries its answers there, so they are put back.
    const answers = ctx.mcpReq.inputResponses;
    const sent = {
      ...rest,
      ...(answers === undefined ? {} : { inputResponses: answers }),
      taskId: route.taskId,
    };
    const answer = await target.withClient(undefined, (client) =>
      // The client giving up on its request gives up on the server's.
      taskRequest(client, method, sent, ctx.mcpReq.signal),
    );
    return 'taskId' in answer ? { ...answer, taskId: params.taskId } : answer;
  };
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'] as const) {
    server.setRequestHandler(method, { params: TaskParams }, relay(method) as never);
  }
}

/** The wait for `store`'s writes to reach its shared backing (the Redis store's `settled`), if it has one. */
export function settledOf(store: StateStore): (() => Promise<void>) | undefined {
  const settled = (store as { settled?: unknown }).settled;
  return typeof settled === 'function' ? () => (settled as () => Promise<void>).call(store) : undefined;
}

/**
 * `channel` declaring the Tasks extension to the server when the 2026-07-28 client of `context`
 * declared it on its request: a server may answer a task only to a client that did, and the
 * gateway can hand one on (the relayed capabilities name sampling, elicitation and roots only).
 */
export function declaringTasks(channel: ClientChannel, context: ServerContext): ClientChannel {
  const tasks = declaredTasks(context);
  if (tasks === undefined) return channel;
  return {
    key: channel.key,
    get session() {
      return channel.session;
    },
    capabilities: () => ({ ...channel.capabilities(), extensions: { [TASKS_EXTENSION]: tasks } }),
    request: (method, params, signal) => channel.request(method, params, signal),
    notify: (method, params, origin) => channel.notify(method, params, origin),
    onClose: (listener) => channel.onClose(listener),
    refused: (method, capability) => channel.refused?.(method, capability),
    ...(channel.direct ? { direct: channel.direct } : {}),
    ...(channel.sessionful !== undefined ? { sessionful: channel.sessionful } : {}),
  };
}

/** `method` about one of the gateway's own tasks (its route checked). */
function gatewayTask(gateway: OwnTasks, method: TaskMethod, id: string): Record<string, unknown> {
  if (method === 'tasks/cancel') gateway.cancel(id);
  if (method !== 'tasks/get') return {};
  const task = gateway.get(id);
  if (!task) throw protocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
  return task;
}

/** What the 2026-07-28 client of `context` declared for the Tasks extension on its request, if it did. */
export function declaredTasks(context: ServerContext): unknown {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = envelope?.['io.modelcontextprotocol/clientCapabilities'] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return declared?.extensions?.[TASKS_EXTENSION];
}
