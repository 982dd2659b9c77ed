import { createHash } from 'node:crypto';
import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { DefaultExecutionEventBusManager, DefaultRequestHandler } from '@a2a-js/sdk/server';
import { type Context, Hono } from 'hono';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { ScopeResolver } from '../../composition/toolsets/toolset-registry.js';
import type { Logger } from '../../foundation/logger.js';
import { requestCaller } from '../http/request-caller.js';
import { A2A_CARD_PATH, A2A_ENDPOINT_PATH, A2A_LEGACY_CARD_PATH } from './a2a-paths.js';
import { buildAgentCard, type CardAuth, toLegacyAgentCard } from './agent-card.js';
import { BoundedTaskStore, DEFAULT_MAX_TASKS } from './bounded-task-store.js';
import { CallerUser } from './call-context.js';
import { jsonRpcEndpoint } from './json-rpc-endpoint.js';
import { restEndpoint } from './rest-endpoint.js';
import { ToolAgentExecutor } from './tool-agent-executor.js';

export { A2A_CARD_PATH, A2A_ENDPOINT_PATH, A2A_LEGACY_CARD_PATH };

export interface A2aSurfaceOptions {
  /** What A2A callers can list, search and run (without `resolveScope`, or when auth is off). */
  scope: ToolScope;
  /** The scope of an authenticated caller (the union of its toolsets). */
  resolveScope?: ScopeResolver;
  /**
   * Set when the gateway requires credentials: the card declares the schemes, and lists skills
   * only to a caller whose credentials are valid (the card itself stays public, as A2A discovery
   * expects).
   */
  auth?: CardAuth;
  /** The gateway's public origin, e.g. `http://127.0.0.1:8080` (read per request: known once listening). */
  baseUrl: () => string;
  info: { name: string; version: string; description?: string };
  log: Logger;
  /** Largest request body accepted, in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Tasks kept for `tasks/get` (most recently updated first). Default 1000. */
  maxTasks?: number;
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

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The gateway as an A2A agent (protocol v1.0, with v0.3 JSON-RPC clients served through the
 * SDK's compat layer): an agent card whose skills are the catalog's tools or namespaces, and
 * tasks that run tools through the scope's pipeline (see `ToolAgentExecutor`).
 */
export function createA2aSurface(options: A2aSurfaceOptions): A2aSurface {
  const log = options.log;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const executor = new ToolAgentExecutor(options.scope, log);
  // The handler reads its card only for protocol decisions (versions, streaming); the card
  // served to clients is built per request, with the current URL and catalog.
  const protocolCard = buildAgentCard({ tools: [], endpointUrl: A2A_ENDPOINT_PATH, info: options.info });
  const requestHandler = new DefaultRequestHandler(
    protocolCard,
    new BoundedTaskStore(options.maxTasks ?? DEFAULT_MAX_TASKS),
    executor,
    new DefaultExecutionEventBusManager(),
    undefined,
    undefined,
    undefined,
    undefined,
    // Tasks here never resume, so no state keeps a finished task's event bus alive.
    { keepBusAliveStates: [] },
  );

  /** The caller's SDK user: its identity and scope (undefined when auth is off). */
  const userOf = (c: Context): CallerUser | undefined => {
    const caller = requestCaller(c);
    if (!caller || !options.resolveScope) return undefined;
    return new CallerUser(caller, options.resolveScope({ caller }));
  };

  // One cached card per scope; `null` is the card of an unauthenticated caller when auth is on.
  const cached = new Map<ToolScope | null, { key: string; card: AgentCard }>();
  const currentCard = (scope: ToolScope | null): AgentCard => {
    const endpointUrl = `${options.baseUrl().replace(/\/+$/, '')}${A2A_ENDPOINT_PATH}`;
    const key = `${scope?.version ?? 0}|${endpointUrl}`;
    let entry = cached.get(scope);
    if (entry?.key !== key) {
      const card = buildAgentCard({
        tools: scope ? scope.tools() : [],
        endpointUrl,
        info: options.info,
        ...(options.auth ? { auth: options.auth } : {}),
      });
      if (!scope) {
        card.description = `${options.info.description ?? options.info.name} Send credentials (see securitySchemes) to see and call its skills.`;
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
    const card = currentCard(user ? user.scope : options.auth ? null : options.scope);
    const body = JSON.stringify(legacy ? toLegacyAgentCard(card) : card);
    const etag = `W/"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    const headers = {
      'content-type': 'application/json',
      // Skills follow the catalog, so clients revalidate (cheaply, with the ETag) every time.
      'cache-control': 'no-cache',
      vary: options.auth ? `${A2A_VERSION_HEADER}, Authorization, X-API-Key` : A2A_VERSION_HEADER,
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
