import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import type { ToolScope } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type {
  JsonSchema,
  Tool,
  ToolAnnotations,
  ToolExample,
  ToolMetadata,
} from '../../foundation/model/tool.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import type { PassthroughListing } from '../mcp/passthrough/passthrough-listing.js';
import type { SurfaceContext } from '../surface-context.js';
import { httpError } from './http-error.js';
import { requestCaller } from './request-caller.js';

/** Where the manifest is served (docs/DESIGN.md §4). */
export const MCP_MANIFEST_PATH = '/.well-known/mcp/manifest.json';

export interface McpManifestOptions {
  /** The tools listed: the scope's visible tools, overrides already applied by the catalog. */
  scope: ToolScope;
  /** The gateway's name and version; `description` defaults to `"<name> tool gateway"`. */
  info: { name: string; version: string; description?: string };
  /** Absolute URL of the MCP endpoint the tools are served at, e.g. `http://127.0.0.1:8080/mcp`. */
  endpointUrl: string;
  /** The name a tool has in flat exposure (what `tools/list` calls it). */
  flatName: (tool: Tool) => string;
  /** The downstream prompts, resources and templates the scope's sessions are served; absent: none listed. */
  passthrough?: PassthroughListing | undefined;
}

/** One tool of the manifest: as `tools/list` shows it in flat exposure, plus its catalog id. */
export interface McpManifestTool {
  id: string;
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  /** The source's `_meta` for the tool, as `tools/list` passes it through. */
  _meta?: Record<string, unknown>;
  /** Category, cost, latency and side effects, when the tool (or an override) states any. */
  metadata?: ToolMetadata;
  examples?: ToolExample[];
  notes?: string;
}

/** The document served at {@link MCP_MANIFEST_PATH}. */
export interface McpManifest {
  name: string;
  version: string;
  description: string;
  endpoint: { url: string; transport: 'streamable-http' };
  toolCount: number;
  tools: McpManifestTool[];
  /** Downstream prompts, named as `prompts/list` names them (when the gateway relays any). */
  prompts?: PassthroughListing['prompts'];
  /** Downstream resources, named as `resources/list` names them. */
  resources?: PassthroughListing['resources'];
  /** Downstream resource templates, named as `resources/templates/list` names them. */
  resourceTemplates?: PassthroughListing['resourceTemplates'];
}

/**
 * The catalog manifest: the gateway, the URL of its MCP endpoint and every tool of the scope with
 * its schemas, in id order. A pure function of its inputs; the result shares the tools' schema
 * objects, so serialise it rather than mutate it.
 */
export function mcpManifest(options: McpManifestOptions): McpManifest {
  const { info, flatName } = options;
  const tools = options.scope.tools().map((tool) => manifestTool(tool, flatName(tool)));
  return {
    name: info.name,
    version: info.version,
    description: info.description ?? `${info.name} tool gateway`,
    endpoint: { url: options.endpointUrl, transport: 'streamable-http' },
    toolCount: tools.length,
    tools,
    ...(options.passthrough ?? {}),
  };
}

function manifestTool(tool: Tool, name: string): McpManifestTool {
  // Same fields and optionality as the flat `tools/list` entry, so a client can trust either.
  const entry: McpManifestTool = {
    id: tool.id,
    name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
  if (tool.title !== undefined) entry.title = tool.title;
  if (tool.outputSchema !== undefined) entry.outputSchema = tool.outputSchema;
  if (tool.meta !== undefined) entry._meta = tool.meta;
  // `extra` is the gateway's own bookkeeping (timeouts, cache flags), not a fact about the tool.
  const { extra: _extra, ...facts } = tool.metadata;
  if (Object.keys(facts).length > 0) entry.metadata = facts;
  if (tool.examples.length > 0) entry.examples = tool.examples;
  if (tool.notes !== undefined) entry.notes = tool.notes;
  return entry;
}

/** What only the manifest needs besides the `SurfaceContext`. */
export interface ManifestRoutesOptions {
  /** What the manifest says the gateway is; default `"<name> tool gateway"`. */
  description?: string;
  /** The name a tool has in flat exposure (what `tools/list` calls it). */
  flatName: (tool: Tool) => string;
  /**
   * The downstream prompts, resources and templates served to a scope's sessions, asked of the
   * servers on each request (they may change without the catalog); absent: none listed.
   */
  passthrough?: (scope: ToolScope, caller?: CallerContext) => Promise<PassthroughListing>;
}

/**
 * `GET /.well-known/mcp/manifest.json` (HEAD too) as a Hono sub-app to mount at the root. The body
 * is rebuilt only when the catalog version or the endpoint URL changed; it is served with
 * `cache-control: no-cache` and an ETag, so clients revalidate cheaply and never keep a stale list.
 * Other methods get 405. An authenticated caller gets the tools of its own scope.
 */
export function manifestRoutes(context: SurfaceContext, options: ManifestRoutesOptions): Hono {
  const info = {
    ...context.info,
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  const cached = new WeakMap<ToolScope, { key: string; body: string; etag: string }>();
  const current = (scope: ToolScope, passthrough: PassthroughListing | undefined) => {
    // The port is known only once listening: read per request.
    const endpointUrl = `${context.baseUrl()}/mcp`;
    const key = `${scope.version}|${endpointUrl}|${passthrough ? JSON.stringify(passthrough) : ''}`;
    let entry = cached.get(scope);
    if (entry?.key !== key) {
      const body = JSON.stringify(
        mcpManifest({ scope, info, endpointUrl, flatName: options.flatName, passthrough }),
      );
      const etag = `W/"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
      entry = { key, body, etag };
      cached.set(scope, entry);
    }
    return entry;
  };

  const app = new Hono();
  app.get(MCP_MANIFEST_PATH, async (c) => {
    const caller = requestCaller(c);
    const scope = caller ? context.resolveScope({ caller }) : context.scope;
    // The caller too: a policy may hide skills (and so their files) from it.
    const { body, etag } = current(scope, await options.passthrough?.(scope, caller));
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-cache', etag };
    if (c.req.header('if-none-match') === etag) return new Response(null, { status: 304, headers });
    return new Response(body, { status: 200, headers });
  });
  app.all(MCP_MANIFEST_PATH, (c) => {
    c.header('allow', 'GET, HEAD');
    return httpError(
      c,
      new GatewayError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}`),
    );
  });
  return app;
}
