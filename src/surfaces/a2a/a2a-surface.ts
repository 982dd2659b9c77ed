import { createHash } from 'node:crypto';
import { A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import { DefaultExecutionEventBusManager, DefaultRequestHandler } from '@a2a-js/sdk/server';
import { type Context, Hono } from 'hono';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { Logger } from '../../foundation/logger.js';
import { A2A_CARD_PATH, A2A_ENDPOINT_PATH, A2A_LEGACY_CARD_PATH } from './a2a-paths.js';
import { buildAgentCard, toLegacyAgentCard } from './agent-card.js';
import { BoundedTaskStore, DEFAULT_MAX_TASKS } from './bounded-task-store.js';
import { jsonRpcEndpoint } from './json-rpc-endpoint.js';
import { restEndpoint } from './rest-endpoint.js';
import { ToolAgentExecutor } from './tool-agent-executor.js';

export { A2A_CARD_PATH, A2A_ENDPOINT_PATH, A2A_LEGACY_CARD_PATH };

export interface A2aSurfaceOptions {
  /** What A2A callers can list, search and run. */
  scope: ToolScope;
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

  let cached: { key: string; card: AgentCard } | undefined;
  const currentCard = (): AgentCard => {
    const endpointUrl = `${options.baseUrl().replace(/\/+$/, '')}${A2A_ENDPOINT_PATH}`;
    const key = `${options.scope.version}|${endpointUrl}`;
    if (cached?.key !== key) {
      cached = {
        key,
        card: buildAgentCard({ tools: options.scope.tools(), endpointUrl, info: options.info }),
      };
    }
    return cached.card;
  };

  const agentCard: A2aHandler = async (c) => {
    // Per the spec a request without A2A-Version speaks 0.3: it gets the hybrid v0.3 card.
    const requested = c.req.header(A2A_VERSION_HEADER)?.trim();
    const legacy = !requested || requested.startsWith('0.');
    const card = currentCard();
    const body = JSON.stringify(legacy ? toLegacyAgentCard(card) : card);
    const etag = `W/"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    const headers = {
      'content-type': 'application/json',
      // Skills follow the catalog, so clients revalidate (cheaply, with the ETag) every time.
      'cache-control': 'no-cache',
      vary: A2A_VERSION_HEADER,
      etag,
    };
    if (c.req.header('if-none-match') === etag) return new Response(null, { status: 304, headers });
    return new Response(body, { status: 200, headers });
  };
  const jsonRpc = jsonRpcEndpoint({ requestHandler, maxBodyBytes, log });
  const rest = restEndpoint({ requestHandler, basePath: A2A_ENDPOINT_PATH, maxBodyBytes, log });

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
