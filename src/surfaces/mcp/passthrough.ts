import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import {
  CompleteRequestSchema,
  CompleteResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  McpError,
  type Prompt,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  type Resource,
  type ResourceTemplate,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ClientChannel } from '../../foundation/client-channel.js';
import { flatToolName } from '../../foundation/flat-name.js';
import { toGatewayError } from '../../foundation/gateway-error.js';
import type { Logger } from '../../foundation/logger.js';
import { maskStrings } from '../../operations/secrets/secret-masker.js';
import type { DownstreamServer } from '../../sources/mcp/downstream-server.js';

/** A downstream server as flat exposure sees it: its `prefix` setting decides prompt names. */
export interface PassthroughServer {
  server: DownstreamServer;
  prefix: boolean;
}

/** The capabilities a flat session advertises: whatever downstream servers offer can be relayed. */
export const PASSTHROUGH_CAPABILITIES = {
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
} as const;

const PAGE_LIMIT = 1000;
const LEVELS = LoggingLevelSchema.options;

/**
 * Flat exposure as a faithful MCP proxy (DESIGN.md §4): resources (list, templates, read,
 * subscribe), prompts (list, get), completions and logging of every downstream server are served
 * on this session. Resource URIs keep their own form and are routed to the server that listed
 * them (or whose template matches); prompt names get the `namespace__` prefix like tools, unless
 * the server has `prefix: false` (then the first configured server wins a name). Downstream
 * notifications reach the session: log messages at or above its level, resource updates it
 * subscribed to, list changes. Returns the function that detaches the session.
 */
export function servePassthrough(
  server: Server,
  servers: readonly PassthroughServer[],
  channel: ClientChannel,
  log: Logger,
  mask: (text: string) => string = (text) => text,
): () => void {
  let level: LoggingLevel | undefined;
  const subscribed = new Set<string>();
  const resourceOwner = new Map<string, DownstreamServer>();
  const templates: { template: UriTemplate; owner: DownstreamServer }[] = [];
  let prompts: Map<string, { owner: DownstreamServer; name: string }> | undefined;

  const offering = (capability: 'resources' | 'prompts' | 'completions' | 'logging') =>
    servers.filter((s) => s.server.capabilities()?.[capability] !== undefined).map((s) => s.server);

  /** Runs `use` on every server offering `capability`; a failing server is logged and skipped. */
  async function gather<T>(
    capability: 'resources' | 'prompts' | 'logging',
    use: (client: Client, owner: DownstreamServer) => Promise<T[]>,
  ): Promise<T[]> {
    const results = await Promise.all(
      offering(capability).map((owner) =>
        owner
          .withClient(channel, (client) => use(client, owner))
          .catch((error) => {
            log.warn({ server: owner.name, err: toGatewayError(error).message }, `${capability} skipped`);
            return [] as T[];
          }),
      ),
    );
    return results.flat();
  }

  async function listResources(): Promise<Resource[]> {
    const found = await gather('resources', (client, owner) =>
      pages((cursor) =>
        client.listResources(cursor).then((r) => ({ items: r.resources, next: r.nextCursor })),
      ).then((resources) => resources.map((resource) => ({ resource, owner }))),
    );
    for (const { resource, owner } of found)
      if (!resourceOwner.has(resource.uri)) resourceOwner.set(resource.uri, owner);
    return found.map((f) => f.resource);
  }

  async function listTemplates(): Promise<ResourceTemplate[]> {
    const found = await gather('resources', (client, owner) =>
      pages((cursor) =>
        client
          .listResourceTemplates(cursor)
          .then((r) => ({ items: r.resourceTemplates, next: r.nextCursor })),
      ).then((list) => list.map((template) => ({ template, owner }))),
    );
    templates.length = 0;
    for (const { template, owner } of found) {
      try {
        templates.push({ template: new UriTemplate(template.uriTemplate), owner });
      } catch {
        // A template the SDK cannot parse cannot route anything.
      }
    }
    return found.map((f) => f.template);
  }

  /** The server a URI belongs to: the one that listed it, else one whose template matches it. */
  async function ownerOf(uri: string): Promise<DownstreamServer> {
    const direct = resourceOwner.get(uri) ?? templates.find((t) => t.template.match(uri))?.owner;
    if (direct) return direct;
    const candidates = offering('resources');
    if (candidates.length === 1 && candidates[0]) return candidates[0];
    await Promise.all([listResources(), listTemplates()]);
    const found = resourceOwner.get(uri) ?? templates.find((t) => t.template.match(uri))?.owner;
    if (found) return found;
    throw new McpError(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
  }

  async function promptMap(
    refresh: boolean,
  ): Promise<Map<string, { owner: DownstreamServer; name: string; prompt: Prompt }>> {
    const found = await gather('prompts', (client, owner) =>
      pages((cursor) =>
        client.listPrompts(cursor).then((r) => ({ items: r.prompts, next: r.nextCursor })),
      ).then((list) => list.map((prompt) => ({ prompt, owner }))),
    );
    const map = new Map<string, { owner: DownstreamServer; name: string; prompt: Prompt }>();
    for (const { prompt, owner } of found) {
      const entry = servers.find((s) => s.server === owner);
      const name = entry?.prefix === false ? prompt.name : flatToolName(owner.namespace, prompt.name);
      if (map.has(name)) {
        log.warn(
          { prompt: name, server: owner.name },
          'prompt name already taken by an earlier server; dropped',
        );
        continue;
      }
      map.set(name, { owner, name: prompt.name, prompt: { ...prompt, name } });
    }
    if (refresh || !prompts) prompts = map;
    return map;
  }

  async function prompt(name: string): Promise<{ owner: DownstreamServer; name: string }> {
    const known = prompts?.get(name) ?? (await promptMap(true)).get(name);
    if (!known) throw new McpError(ErrorCode.InvalidParams, `Prompt not found: ${name}`, { name });
    return known;
  }

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: await listTemplates(),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const owner = await ownerOf(request.params.uri);
    return relay(
      owner,
      channel,
      (client) =>
        client.request({ method: 'resources/read', params: request.params }, ReadResourceResultSchema, {
          signal: extra.signal,
        }),
      mask,
    );
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const owner = await ownerOf(request.params.uri);
    await relay(owner, channel, () => owner.subscription(request.params.uri, channel, true), mask);
    subscribed.add(request.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    if (!subscribed.delete(uri)) return {};
    const owner = await ownerOf(uri);
    await relay(owner, channel, () => owner.subscription(uri, channel, false), mask);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [...(await promptMap(true)).values()].map((p) => p.prompt),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const target = await prompt(request.params.name);
    return relay(
      target.owner,
      channel,
      (client) =>
        client.request(
          { method: 'prompts/get', params: { ...request.params, name: target.name } },
          GetPromptResultSchema,
          { signal: extra.signal },
        ),
      mask,
    );
  });
  server.setRequestHandler(CompleteRequestSchema, async (request, extra) => {
    const { ref } = request.params;
    let owner: DownstreamServer;
    let params = request.params;
    if (ref.type === 'ref/prompt') {
      const target = await prompt(ref.name);
      owner = target.owner;
      params = { ...params, ref: { ...ref, name: target.name } };
    } else {
      owner = await ownerOf(ref.uri);
    }
    if (owner.capabilities()?.completions === undefined)
      return { completion: { values: [], hasMore: false } };
    return relay(
      owner,
      channel,
      (client) =>
        client.request({ method: 'completion/complete', params }, CompleteResultSchema, {
          signal: extra.signal,
        }),
      mask,
    );
  });
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    level = request.params.level;
    const wanted = level;
    await Promise.all(
      offering('logging').map((owner) =>
        owner.setLogLevel(channel, wanted).catch((error) => {
          log.warn({ server: owner.name, err: toGatewayError(error).message }, 'logging skipped');
        }),
      ),
    );
    return {};
  });

  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await Promise.allSettled(
      servers.map(({ server: downstream }) =>
        downstream.notifySession(channel, 'notifications/roots/list_changed'),
      ),
    );
  });

  // Notifications of the shared connections (sessions with links of their own get theirs there).
  const detach = servers.map(({ server: downstream }) =>
    downstream.onNotification((method, params) => {
      const send = () => server.notification({ method, params } as never).catch(() => {});
      if (method === 'notifications/message') {
        // A server's log message may quote its own configuration (a URL with a key, a header).
        params = params === undefined ? params : maskStrings(params, mask);
        const at = LEVELS.indexOf((params?.level as LoggingLevel) ?? 'info');
        if (level === undefined || at >= LEVELS.indexOf(level)) void send();
      } else if (method === 'notifications/resources/updated') {
        if (subscribed.has(String(params?.uri))) void send();
      } else if (
        method === 'notifications/resources/list_changed' ||
        method === 'notifications/prompts/list_changed'
      ) {
        if (method.includes('prompts')) prompts = undefined;
        void send();
      }
    }),
  );
  return () => {
    for (const off of detach) off();
    for (const uri of subscribed) {
      const owner = resourceOwner.get(uri) ?? templates.find((t) => t.template.match(uri))?.owner;
      void owner?.subscription(uri, channel, false).catch(() => {});
    }
    subscribed.clear();
  };
}

/** Runs a relayed request; gateway failures become JSON-RPC errors the client understands. */
async function relay<T>(
  owner: DownstreamServer,
  channel: ClientChannel,
  use: (client: Client) => Promise<T>,
  mask: (text: string) => string,
): Promise<T> {
  try {
    return await owner.withClient(channel, use);
  } catch (error) {
    // A downstream message (or ours, naming the server's URL) may carry a configured credential.
    if (error instanceof McpError) {
      const message = mask(error.message);
      if (message === error.message) throw error;
      throw new McpError(error.code, message.replace(/^MCP error -?\d+: /, ''), error.data);
    }
    const failure = toGatewayError(error);
    throw new McpError(ErrorCode.InternalError, mask(failure.message), { code: failure.code });
  }
}

/** Follows a list method through its pages. */
async function pages<T>(
  load: (params: { cursor: string } | undefined) => Promise<{ items: T[]; next?: string | undefined }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < PAGE_LIMIT; page++) {
    const result = await load(cursor === undefined ? undefined : { cursor });
    all.push(...result.items);
    cursor = result.next;
    if (!cursor) break;
  }
  return all;
}
