import { createHash } from 'node:crypto';
import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  type ServerCallContext,
  type TaskStore,
} from '@a2a-js/sdk/server';
import { type Context, Hono } from 'hono';
import type { ToolScope } from '../../composition/tool-scope.js';
import { requestCaller } from '../http/request-caller.js';
import type { SurfaceContext } from '../surface-context.js';
import { A2A_CARD_PATH, A2A_ENDPOINT_PATH, A2A_LEGACY_CARD_PATH } from './a2a-paths.js';
import { buildAgentCard, type CardExtras, toLegacyAgentCard } from './agent-card.js';
import { BoundedTaskStore, DEFAULT_MAX_TASKS } from './bounded-task-store.js';
import { CallerUser } from './call-context.js';
import { jsonRpcEndpoint } from './json-rpc-endpoint.js';
import { type PushOptions, pushNotifications } from './push-notifications.js';
import { restEndpoint } from './rest-endpoint.js';
import { ToolAgentExecutor } from './tool-agent-executor.js';

export { A2A_CARD_PATH, A2A_ENDPOINT_PATH, A2A_LEGACY_CARD_PATH };

/** What only the A2A surface needs besides the `SurfaceContext`. */
export interface A2aSurfaceOptions {
  /** What the agent card says the gateway is; default from the name. */
  description?: string;
  /** Tasks kept for `tasks/get` (most recently updated first). Default 1000. */
  maxTasks?: number;
  /** Where tasks are kept; default a {@link BoundedTaskStore} of `maxTasks` in memory. */
  taskStore?: TaskStore;
  /** Operator-set card fields (`a2a.card`). */
  card?: CardExtras;
  /** Push notifications (`a2a.push`); `false` turns them off. Default on, public webhooks only. */
  push?: PushOptions | false;
}

/** A request handler for Hono routes. */
export type A2aHandler = (c: Context) => Promise<Response>;

/**
 * The A2A surface. Mount `app` at the root (`app.route('/', surface.app)`), or the handlers one
 * by one: `GET /.well-known/agent-card.json` → `agentCard` (also `GET /.well-known/agent.json`),
 * `POST /a2a` → `jsonRpc`, any method on `/a2a/*` → `rest`.
 */
export interface A2aSurface {
  app: Hono;
  agentCard: A2aHandler;
  jsonRpc: A2aHandler;
  rest: A2aHandler;
  /** Aborts the tool calls of running tasks (their tasks end canceled). */
  close(): Promise<void>;
}

/**
 * The gateway as an A2A agent (protocol v1.0, with v0.3 JSON-RPC clients served through the
 * SDK's compat layer): an agent card whose skills are the catalog's tools or namespaces, and
 * tasks that run tools through the scope's pipeline (see `ToolAgentExecutor`).
 */
export function createA2aSurface(context: SurfaceContext, options: A2aSurfaceOptions = {}): A2aSurface {
  const log = context.log.child({ component: 'a2a' });
  const { maxBodyBytes } = context;
  const info = {
    ...context.info,
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  const executor = new ToolAgentExecutor(context.scope, log);
  const push = options.push === false ? undefined : pushNotifications(options.push ?? {}, log);
  // Only an authenticated caller has an extended card: without auth every caller sees it all.
  const extendedAgentCard = context.credentials !== undefined;
  const cardOptions = {
    info,
    ...(options.card ? { extras: options.card } : {}),
    pushNotifications: push !== undefined,
    extendedAgentCard,
  };
  // The handler reads its card only for protocol decisions (versions, streaming, push); the card
  // served to clients is built per request, with the current URL and catalog.
  const protocolCard = buildAgentCard({ tools: [], endpointUrl: A2A_ENDPOINT_PATH, ...cardOptions });
  /** The extended card: the skills this caller may use (its scope), as the public card never lists them. */
  const extendedCard = async (call: ServerCallContext): Promise<AgentCard> => {
    const user = call.user;
    if (!(user instanceof CallerUser))
      throw new UnsupportedOperationError('The extended agent card needs credentials');
    return currentCard(user.scope);
  };
  const requestHandler = new DefaultRequestHandler(
    protocolCard,
    options.taskStore ?? new BoundedTaskStore(options.maxTasks ?? DEFAULT_MAX_TASKS),
    executor,
    new DefaultExecutionEventBusManager(),
    push?.store,
    push?.sender,
    extendedAgentCard ? extendedCard : undefined,
    undefined,
    // Tasks here never resume, so no state keeps a finished task's event bus alive.
    { keepBusAliveStates: [] },
  );

  /** The caller's SDK user: its identity and scope (undefined when auth is off). */
  const userOf = (c: Context): CallerUser | undefined => {
    const caller = requestCaller(c);
    if (!caller) return undefined;
    return new CallerUser(caller, context.resolveScope({ caller }));
  };

  // One cached card per scope; `null` is the card of an unauthenticated caller when auth is on.
  const cached = new Map<ToolScope | null, { key: string; card: AgentCard }>();
  const currentCard = (scope: ToolScope | null): AgentCard => {
    const endpointUrl = `${context.baseUrl().replace(/\/+$/, '')}${A2A_ENDPOINT_PATH}`;
    const key = `${scope?.version ?? 0}|${endpointUrl}`;
    let entry = cached.get(scope);
    if (entry?.key !== key) {
      const card = buildAgentCard({
        tools: scope ? scope.tools() : [],
        endpointUrl,
        ...cardOptions,
        ...(context.credentials ? { auth: context.credentials } : {}),
      });
      if (!scope) {
        card.description = `${info.description ?? info.name} Send credentials (see securitySchemes) to see and call its skills.`;
      }
      // Scopes are few (toolsets and their unions); a bound keeps stray ones from piling up.
      if (cached.size > 64) cached.clear();
      entry = { key, card };
      cached.set(scope, entry);
    }
    return entry.card;
  };

  const agentCard: A2aHandler = async (c) => {
    // Per the spec a request without A2A-Version speaks 0.3: it gets the hybrid v0.3 card.
    const requested = c.req.header(A2A_VERSION_HEADER)?.trim();
    const legacy = !requested || requested.startsWith('0.');
    const user = userOf(c);
    const card = currentCard(user ? user.scope : context.credentials ? null : context.scope);
    const body = JSON.stringify(legacy ? toLegacyAgentCard(card) : card);
    const etag = `W/"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    const headers = {
      'content-type': 'application/json',
      // Skills follow the catalog, so clients revalidate (cheaply, with the ETag) every time.
      'cache-control': 'no-cache',
      vary: context.credentials ? `${A2A_VERSION_HEADER}, Authorization, X-API-Key` : A2A_VERSION_HEADER,
      etag,
    };
    if (c.req.header('if-none-match') === etag) return new Response(null, { status: 304, headers });
    return new Response(body, { status: 200, headers });
  };
  const jsonRpc = jsonRpcEndpoint({ requestHandler, maxBodyBytes, log, userOf });
  const rest = restEndpoint({ requestHandler, basePath: A2A_ENDPOINT_PATH, maxBodyBytes, log, userOf });

  const app = new Hono();
  app.get(A2A_CARD_PATH, agentCard);
  app.get(A2A_LEGACY_CARD_PATH, agentCard);
  app.post(A2A_ENDPOINT_PATH, jsonRpc);
  app.all(A2A_ENDPOINT_PATH, (c) =>
    c.json(
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: `${c.req.method} is not allowed; POST JSON-RPC requests` },
      },
      405,
      { allow: 'POST' },
    ),
  );
  app.all(`${A2A_ENDPOINT_PATH}/*`, rest);

  return {
    app,
    agentCard,
    jsonRpc,
    rest,
    close: async () => executor.abortAll(),
  };
}
