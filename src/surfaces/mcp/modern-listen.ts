import { SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from '../../sources/mcp/downstream-tasks.js';
import type { ListenFilter, OpenedExtras } from './listen-extras.js';

/** A `subscriptions/listen` request as the gateway reads it before the SDK serves it. */
export interface ListenRequest {
  id: string | number;
  /** What the client asked to hear. */
  filter: ListenFilter;
  /** Whether the request declared the Tasks extension (`taskIds` needs it). */
  declaresTasks: boolean;
  /** The body the SDK serves: its filter reduced to the catalog's tool changes (see `sdkListenBody`). */
  sdkBody: unknown;
}

/**
 * `body` as a `subscriptions/listen` request, or undefined when it is something else (or so
 * malformed that the SDK's own validation should answer it).
 *
 * The SDK serves the stream — its envelope and header checks, the acknowledgement's subscription
 * id, keep-alives, the graceful close — but carries only what its event bus publishes, and the
 * gateway publishes only the catalog's tool changes there; everything else a client may ask (the
 * downstream prompt and resource changes, resource updates, task status) comes from `ListenExtras`
 * and is woven into the same stream (`weaveListenStream`). So the SDK is handed the filter
 * `{ toolsListChanged: true }` whatever the client asked: with nothing it honours the SDK would
 * end the stream at once. Tool changes the client did not ask for are dropped from the stream.
 */
export function listenRequestOf(body: unknown): ListenRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as { id?: unknown; method?: unknown; params?: unknown };
  if (message.method !== 'subscriptions/listen') return undefined;
  if (typeof message.id !== 'string' && typeof message.id !== 'number') return undefined;
  const params = message.params as { notifications?: unknown; _meta?: Record<string, unknown> } | undefined;
  const asked = params?.notifications;
  if (typeof asked !== 'object' || asked === null || Array.isArray(asked)) return undefined;
  const filter = readFilter(asked as Record<string, unknown>);
  if (!filter) return undefined;
  const declared = params?._meta?.['io.modelcontextprotocol/clientCapabilities'] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return {
    id: message.id,
    filter,
    declaresTasks: declared?.extensions?.[TASKS_EXTENSION] !== undefined,
    sdkBody: { ...message, params: { ...params, notifications: { toolsListChanged: true } } },
  };
}

/** The filter's fields, when each has its type; undefined otherwise (the SDK answers -32602). */
function readFilter(asked: Record<string, unknown>): ListenFilter | undefined {
  const filter: ListenFilter = {};
  for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const) {
    const value = asked[key];
    if (value === undefined) continue;
    if (typeof value !== 'boolean') return undefined;
    if (value) filter[key] = true;
  }
  for (const key of ['resourceSubscriptions', 'taskIds'] as const) {
    const value = asked[key];
    if (value === undefined) continue;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return undefined;
    filter[key] = value as string[];
  }
  return filter;
}

/** The answer to `taskIds` from a client that did not declare the Tasks extension (-32021). */
export function tasksNotDeclared(id: string | number): Response {
  return Response.json(
    {
      jsonrpc: '2.0',
      id,
      error: {
        code: -32021,
        message: 'Missing required client capability',
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      },
    },
    { status: 400 },
  );
}

export interface WeaveOptions {
  request: ListenRequest;
  /** What the extras honour; their notifications so far are in `queued`, later ones come through `attach`. */
  extras: OpenedExtras;
  /** Notifications the extras emitted before the stream was woven. */
  queued: { method: string; params: Record<string, unknown> }[];
  /** Hands the stream's notification writer to the extras' emitter. */
  attach: (write: (method: string, params: Record<string, unknown>) => void) => void;
  serverInfo: { name: string; version: string };
}

/**
 * The SDK's listen stream (`response`, an event stream) with the extras woven in: its
 * acknowledgement rewritten to tell the whole honoured filter (the catalog's tool changes if
 * asked, and what the extras honour), tool changes not asked for dropped, and every extra
 * notification written as an event of the stream with the subscription id in its `_meta`. When
 * nothing at all is honoured the stream ends after its acknowledgement, gracefully, as the SDK's
 * would. The extras close when the stream ends, whoever ends it.
 */
export function weaveListenStream(response: Response, options: WeaveOptions): Response {
  const { request, extras } = options;
  const body = response.body;
  if (!body) {
    extras.close();
    return response;
  }
  const subscriptionId = request.id;
  const honored: ListenFilter = {
    ...(request.filter.toolsListChanged ? { toolsListChanged: true } : {}),
    ...extras.honored,
  };
  const nothing = Object.keys(honored).length === 0;
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let acknowledged = false;
  let ended = false;
  let pending = '';
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const frame = (message: Record<string, unknown>) =>
    encoder.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...message })}\n\n`);
  const notification = (method: string, params: Record<string, unknown>) =>
    frame({
      method,
      params: {
        ...params,
        _meta: {
          ...(params._meta as Record<string, unknown> | undefined),
          [SUBSCRIPTION_ID_META_KEY]: subscriptionId,
        },
      },
    });
  const end = () => {
    if (ended) return;
    ended = true;
    extras.close();
    void reader.cancel().catch(() => {});
    try {
      controller.close();
    } catch {
      // Closed by the consumer already.
    }
  };
  const write = (method: string, params: Record<string, unknown>) => {
    if (ended) return;
    if (!acknowledged) {
      options.queued.push({ method, params });
      return;
    }
    controller.enqueue(notification(method, params));
  };
  /** One event of the SDK's stream, as the client gets it (undefined: dropped). */
  const rewrite = (event: string): Uint8Array | undefined => {
    const data = /^data: (.*)$/m.exec(event)?.[1];
    if (data === undefined) return encoder.encode(`${event}\n\n`);
    const message = JSON.parse(data) as { method?: string; params?: Record<string, unknown> };
    if (message.method === 'notifications/subscriptions/acknowledged') {
      acknowledged = true;
      const ack = frame({ method: message.method, params: { ...message.params, notifications: honored } });
      if (nothing) {
        controller.enqueue(ack);
        controller.enqueue(
          frame({
            id: subscriptionId,
            result: {
              resultType: 'complete',
              _meta: {
                [SUBSCRIPTION_ID_META_KEY]: subscriptionId,
                [SERVER_INFO_META_KEY]: options.serverInfo,
              },
            },
          }),
        );
        end();
        return undefined;
      }
      controller.enqueue(ack);
      for (const { method, params } of options.queued.splice(0))
        controller.enqueue(notification(method, params));
      return undefined;
    }
    if (message.method === 'notifications/tools/list_changed' && !honored.toolsListChanged) return undefined;
    return encoder.encode(`${event}\n\n`);
  };
  const stream = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
      options.attach(write);
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done || ended) break;
            pending += decoder.decode(value, { stream: true });
            let cut = pending.indexOf('\n\n');
            while (cut >= 0 && !ended) {
              const event = pending.slice(0, cut);
              pending = pending.slice(cut + 2);
              const out = event.trim() === '' ? undefined : rewrite(event);
              if (out && !ended) controller.enqueue(out);
              cut = pending.indexOf('\n\n');
            }
          }
        } catch {
          // The SDK's stream failed or was cancelled: the client's stream ends with it.
        }
        end();
      })();
    },
    cancel() {
      end();
    },
  });
  return new Response(stream, { status: response.status, headers: response.headers });
}
