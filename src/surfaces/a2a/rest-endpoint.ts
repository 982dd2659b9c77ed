import {
  A2A_CONTENT_TYPE,
  AgentCard,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  type Message,
  SendMessageRequest,
  SendMessageResponse,
  StreamResponse,
  Task,
  TaskPushNotificationConfig,
  taskStateFromJSON,
} from '@a2a-js/sdk';
import {
  RequestMalformedError,
  restStatusFor,
  toRestErrorBody,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import {
  type A2ARequestHandler,
  type ServerCallContext,
  type User,
  validateVersion,
} from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import { httpStatusOf } from '../../foundation/model/error-tables.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { readJsonBody } from '../http/read-json-body.js';
import { callContext, extensionHeaders } from './call-context.js';
import { sseResponse } from './sse-response.js';

export interface RestEndpointOptions {
  requestHandler: A2ARequestHandler;
  /** Where the routes are mounted, e.g. `/a2a`. */
  basePath: string;
  maxBodyBytes: number;
  log: Logger;
  /** The SDK user of a request (its caller and scope); default: the unauthenticated user. */
  userOf?: (c: Context) => User | undefined;
}

type Route = (c: Context, context: ServerCallContext, match: RegExpExecArray) => Promise<Response>;

const TASK_ID = '([^/:]+)';

/**
 * The A2A v1.0 HTTP+JSON binding under `basePath`: `POST /message:send`, `POST /message:stream`
 * (SSE), `GET /tasks`, `GET /tasks/{id}`, `POST /tasks/{id}:cancel`, `GET|POST
 * /tasks/{id}:subscribe` (SSE), `GET /extendedAgentCard`, and the push notification configs of a
 * task (`GET|POST /tasks/{id}/pushNotificationConfigs`, `GET|DELETE …/{configId}`); bodies are the protobuf JSON the
 * spec defines. The SDK ships this binding only as Express middleware, so the routing is done
 * here over its transport-agnostic `A2ARequestHandler` and message codecs. The v0.3 REST paths
 * (`/v1/...`) are not served: v0.3 clients use JSON-RPC.
 */
export function restEndpoint(options: RestEndpointOptions): (c: Context) => Promise<Response> {
  const { requestHandler: handler, log } = options;

  const readMessageRequest = async (c: Context): Promise<SendMessageRequest> => {
    const params = SendMessageRequest.fromJSON(await readBody(c, options.maxBodyBytes));
    if (!params.message) throw new RequestMalformedError('message is required');
    if (!params.message.messageId) throw new RequestMalformedError('message.messageId is required');
    return params;
  };
  const stream = async (context: ServerCallContext, events: AsyncGenerator<StreamResponse, void>) => {
    const sse = await sseResponse(events, {
      encode: (event) => StreamResponse.toJSON(event),
      encodeError: (error) => toRestErrorBody(error, restStatusFor(error)),
      headers: extensionHeaders(context, false),
      log,
    });
    if (!sse.ok) throw sse.error;
    return sse.response;
  };

  const routes: { method: string[]; pattern: RegExp; route: Route }[] = [
    {
      method: ['POST'],
      pattern: /^\/message:send$/,
      route: async (c, context) => {
        const result = await handler.sendMessage(await readMessageRequest(c), context);
        const payload = isMessage(result)
          ? { $case: 'message' as const, value: result }
          : { $case: 'task' as const, value: result };
        return json(SendMessageResponse.toJSON({ payload }), 200, context);
      },
    },
    {
      method: ['POST'],
      pattern: /^\/message:stream$/,
      route: async (c, context) =>
        stream(context, handler.sendMessageStream(await readMessageRequest(c), context)),
    },
    {
      method: ['GET'],
      pattern: new RegExp(`^/tasks/${TASK_ID}$`),
      route: async (c, context, match) => {
        const historyLength = optionalInteger(c.req.query('historyLength'), 'historyLength');
        const task = await handler.getTask({ tenant: '', id: taskId(match), historyLength }, context);
        return json(Task.toJSON(task), 200, context);
      },
    },
    {
      method: ['POST'],
      pattern: new RegExp(`^/tasks/${TASK_ID}:cancel$`),
      route: async (_c, context, match) => {
        const task = await handler.cancelTask({ tenant: '', id: taskId(match), metadata: {} }, context);
        return json(Task.toJSON(task), 200, context);
      },
    },
    {
      method: ['GET', 'POST'],
      pattern: new RegExp(`^/tasks/${TASK_ID}:subscribe$`),
      route: async (_c, context, match) =>
        stream(context, handler.resubscribe({ tenant: '', id: taskId(match) }, context)),
    },
    {
      method: ['GET'],
      pattern: /^\/tasks$/,
      route: async (c, context) => {
        const status = c.req.query('status');
        const includeArtifacts = c.req.query('includeArtifacts') === 'true';
        const list = await handler.listTasks(
          {
            tenant: '',
            contextId: c.req.query('contextId') ?? '',
            status: status ? taskStateFromJSON(Number.isNaN(Number(status)) ? status : Number(status)) : 0,
            pageSize: optionalInteger(c.req.query('pageSize'), 'pageSize'),
            pageToken: c.req.query('pageToken') ?? '',
            historyLength: optionalInteger(c.req.query('historyLength'), 'historyLength'),
            statusTimestampAfter: c.req.query('statusTimestampAfter') || undefined,
            includeArtifacts,
          },
          context,
        );
        return json(ListTasksResponse.toJSON(list), 200, context);
      },
    },
    {
      method: ['GET'],
      pattern: /^\/extendedAgentCard$/,
      route: async (_c, context) => {
        const card = await handler.getAuthenticatedExtendedAgentCard({ tenant: '' }, context);
        return json(AgentCard.toJSON(card), 200, context);
      },
    },
    {
      method: ['GET', 'POST'],
      pattern: new RegExp(`^/tasks/${TASK_ID}/pushNotificationConfigs$`),
      route: async (c, context, match) => {
        const id = taskId(match);
        if (c.req.method === 'POST') {
          const params = TaskPushNotificationConfig.fromJSON(await readBody(c, options.maxBodyBytes));
          const created = await handler.createTaskPushNotificationConfig({ ...params, taskId: id }, context);
          return json(TaskPushNotificationConfig.toJSON(created), 200, context);
        }
        const list = await handler.listTaskPushNotificationConfigs(
          {
            tenant: '',
            taskId: id,
            pageSize: optionalInteger(c.req.query('pageSize'), 'pageSize') ?? 0,
            pageToken: c.req.query('pageToken') ?? '',
          },
          context,
        );
        return json(ListTaskPushNotificationConfigsResponse.toJSON(list), 200, context);
      },
    },
    {
      method: ['GET', 'DELETE'],
      pattern: new RegExp(`^/tasks/${TASK_ID}/pushNotificationConfigs/([^/]+)$`),
      route: async (c, context, match) => {
        const params = { tenant: '', taskId: taskId(match), id: decodeURIComponent(match[2] ?? '') };
        if (c.req.method === 'DELETE') {
          await handler.deleteTaskPushNotificationConfig(params, context);
          return json({}, 200, context);
        }
        const config = await handler.getTaskPushNotificationConfig(params, context);
        return json(TaskPushNotificationConfig.toJSON(config), 200, context);
      },
    },
  ];

  return async (c) => {
    const path = c.req.path.slice(options.basePath.length);
    if (path.startsWith('/v1/')) {
      return fail(
        new VersionNotSupportedError(
          `A2A v0.3 HTTP+JSON is not served; v0.3 clients use JSON-RPC at ${options.basePath}`,
        ),
      );
    }
    for (const { method, pattern, route } of routes) {
      const match = pattern.exec(path);
      if (!match) continue;
      if (!method.includes(c.req.method)) {
        return failWith(405, `${c.req.method} is not allowed on ${c.req.path}`);
      }
      try {
        const context = callContext(c, false, options.userOf?.(c));
        validateVersion(context.requestedVersion, await handler.getAgentCard(), 'HTTP+JSON');
        return await route(c, context, match);
      } catch (error) {
        log.debug({ err: error, path: c.req.path }, 'A2A HTTP+JSON request failed');
        return fail(error);
      }
    }
    return failWith(404, `No A2A route ${c.req.method} ${c.req.path}`);
  };
}

async function readBody(c: Context, maxBytes: number): Promise<unknown> {
  try {
    return await readJsonBody(c, maxBytes);
  } catch (error) {
    // A body over the limit keeps its own status (413); anything else is a malformed request.
    if (error instanceof GatewayError && error.code === 'payload_too_large') throw error;
    throw new RequestMalformedError(error instanceof Error ? error.message : 'Invalid JSON payload.');
  }
}

function json(body: unknown, status: number, context: ServerCallContext): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': A2A_CONTENT_TYPE, ...extensionHeaders(context, false) },
  });
}

function fail(error: unknown): Response {
  const status = error instanceof GatewayError ? httpStatusOf(error.code) : restStatusFor(error);
  return new Response(JSON.stringify(toRestErrorBody(error, status)), {
    status,
    headers: { 'content-type': A2A_CONTENT_TYPE },
  });
}

function failWith(status: number, message: string): Response {
  return new Response(JSON.stringify(toRestErrorBody(new Error(message), status)), {
    status,
    headers: { 'content-type': A2A_CONTENT_TYPE },
  });
}

function taskId(match: RegExpExecArray): string {
  const raw = match[1] ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RequestMalformedError(`Malformed task id "${raw}"`);
  }
}

function optionalInteger(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new RequestMalformedError(`${name} must be a non-negative integer`);
  }
  return parsed;
}

function isMessage(result: Message | Task): result is Message {
  return 'messageId' in result;
}
