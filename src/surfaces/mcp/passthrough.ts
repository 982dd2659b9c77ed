import type { Client } from '@modelcontextprotocol/client';
import {
  CompleteResultSchema,
  GetPromptResultSchema,
  LoggingLevelSchema,
  ReadResourceResultSchema,
} from '@modelcontextprotocol/core';
import {
  type GetPromptResult,
  type InputRequiredResult,
  isInputRequiredResult,
  type LoggingLevel,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type Server,
  type ServerContext,
  UriTemplate,
} from '@modelcontextprotocol/server';
import type { ClientChannel } from '../../foundation/client-channel.js';
import { flatToolName } from '../../foundation/flat-name.js';
import { toGatewayError } from '../../foundation/gateway-error.js';
import type { Logger } from '../../foundation/logger.js';
import type { Tool, ToolResult } from '../../foundation/tool.js';
import { maskStrings } from '../../operations/secrets/secret-masker.js';
import type { DownstreamServer } from '../../sources/mcp/downstream-server.js';
import { isModern, requestWithRounds } from '../../sources/mcp/modern-requests.js';
import { type InputRounds, isModernRequest, relayCapabilities, withDirect } from './input-rounds.js';
import { protocolError } from './protocol-error.js';
import { ResourceNaming } from './resource-naming.js';
import type { SessionChannel } from './session-channel.js';

/** A downstream server as flat exposure sees it: its `prefix` setting decides prompt names. */
export interface PassthroughServer {
  server: DownstreamServer;
  prefix: boolean;
}

/** A flat session's passthrough, once served. */
export interface Passthrough {
  /**
   * A result of `tool` as the session's client must see it: resources it links (`resource_link`)
   * or embeds (`resource`) named as `resources/list` names them, so reading one reaches the server
   * that produced it.
   */
  toolResult(tool: Tool, result: ToolResult): ToolResult;
  /** Detaches the session from the downstream servers. */
  close(): void;
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
 * Flat exposure as a faithful MCP proxy (docs/DESIGN.md §4): resources (list, templates, read,
 * subscribe), prompts (list, get), completions and logging of every downstream server are served
 * on this session. With several servers, resource URIs and names carry the server's namespace
 * (`ResourceNaming`: `aperture://<namespace>/<uri>`), so two servers exposing the same URIs stay
 * apart; reads, subscriptions, templates and completions go back to that server with its own
 * URI. A URI in a server's own form is routed to the server that listed it (or whose template
 * matches). Prompt names get the `namespace__` prefix like tools, unless the server has
 * `prefix: false` (then the first configured server wins a name). Downstream notifications reach
 * the session: log messages at or above its level, resource updates it subscribed to (named as
 * listed), list changes; resources in tool results are named as listed too (`toolResult`).
 */
export function servePassthrough(
  server: Server,
  servers: readonly PassthroughServer[],
  session: SessionChannel,
  log: Logger,
  mask: (text: string) => string = (text) => text,
  rounds?: { rounds: InputRounds; owner: string },
): Passthrough {
  const channel = session.channel;
  let level: LoggingLevel | undefined;
  const naming = new ResourceNaming(
    servers.map((s) => ({ namespace: s.server.namespace, prefix: s.prefix })),
  );
  /** Client-facing URIs this session subscribed to. */
  const subscribed = new Set<string>();
  /** Client-facing URI → the server that listed it. */
  const resourceOwner = new Map<string, DownstreamServer>();
  /** Client-facing templates → their server. */
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
      ).then((resources) =>
        resources.map((resource) => ({
          resource: {
            ...resource,
            uri: naming.toClient(owner.namespace, resource.uri),
            name: naming.nameToClient(owner.namespace, resource.name),
          },
          owner,
        })),
      ),
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
      ).then((list) =>
        list.map((template) => ({
          template: {
            ...template,
            uriTemplate: naming.toClient(owner.namespace, template.uriTemplate),
            name: naming.nameToClient(owner.namespace, template.name),
          },
          owner,
        })),
      ),
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

  /**
   * The server a client-facing URI belongs to, and the URI in that server's own form: the
   * namespace a namespaced URI names; else the server that listed the URI, or one whose template
   * matches it.
   */
  async function ownerOf(uri: string): Promise<{ owner: DownstreamServer; uri: string }> {
    const resolved = naming.fromClient(uri);
    if (resolved.namespace !== undefined && naming.isNamespaced(resolved.namespace)) {
      const owner = servers.find((s) => s.server.namespace === resolved.namespace)?.server;
      if (owner) return { owner, uri: resolved.uri };
      throw notFound(uri);
    }
    const known = () =>
      resourceOwner.get(uri) ??
      templates.find((t) => t.template.match(uri))?.owner ??
      // A server's own URI, of a server whose URIs are namespaced: whoever lists it in that form.
      [...resourceOwner.entries()].find(([listed, o]) => naming.toClient(o.namespace, uri) === listed)?.[1] ??
      templates.find((t) => t.template.match(naming.toClient(t.owner.namespace, uri)))?.owner;
    const direct = known();
    if (direct) return { owner: direct, uri };
    const candidates = offering('resources');
    if (candidates.length === 1 && candidates[0]) return { owner: candidates[0], uri };
    await Promise.all([listResources(), listTemplates()]);
    const found = known();
    if (found) return { owner: found, uri };
    throw notFound(uri);
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
    if (!known) throw protocolError(ProtocolErrorCode.InvalidParams, `Prompt not found: ${name}`, { name });
    return known;
  }

  server.setRequestHandler('resources/list', async () => ({ resources: await listResources() }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: await listTemplates(),
  }));
  /**
   * Relays a request that may take rounds of input (`prompts/get`, `resources/read`): a 2026-07-28
   * client answers a 2026-07-28 server's rounds itself (`target` binds the state of each round to
   * this request); for a 2025 client the gateway answers them, asking the client.
   */
  async function relayRounds<T>(
    owner: DownstreamServer,
    extra: ServerContext,
    target: string,
    request: { method: string; params: Record<string, unknown> },
    schema: Parameters<Client['request']>[1],
  ): Promise<T | InputRequiredResult> {
    const modern = rounds && isModernRequest(extra) ? rounds : undefined;
    const via = modern
      ? withDirect(
          session.forCall(extra),
          modern.rounds.directRounds(extra, modern.owner, target),
          relayCapabilities(extra),
        )
      : session.forCall(extra);
    const options = { signal: extra.mcpReq.signal };
    const result = await relay(
      owner,
      via,
      (client) =>
        isModern(client)
          ? requestWithRounds<T>(client, request, schema, options, via, owner.logLevel())
          : (client.request(request as never, schema, options) as Promise<T>),
      mask,
    );
    if (modern && isInputRequiredResult(result))
      return modern.rounds.passOn(extra, modern.owner, target, result);
    return result;
  }

  server.setRequestHandler('resources/read', async (request, extra) => {
    const asked = request.params.uri;
    const { owner, uri } = await ownerOf(asked);
    const result = await relayRounds<ReadResourceResult>(
      owner,
      extra,
      `resources/read:${asked}`,
      { method: 'resources/read', params: { ...request.params, uri } },
      ReadResourceResultSchema,
    );
    if (isInputRequiredResult(result)) return result;
    // Contents name the URI the client asked for (a server may answer sub-resources too).
    return {
      ...result,
      contents: result.contents.map((content) => ({
        ...content,
        uri: content.uri === uri ? asked : naming.toClient(owner.namespace, content.uri),
      })),
    };
  });
  server.setRequestHandler('resources/subscribe', async (request) => {
    const { owner, uri } = await ownerOf(request.params.uri);
    await relay(owner, channel, () => owner.subscription(uri, channel, true), mask);
    subscribed.add(naming.toClient(owner.namespace, uri));
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    const { owner, uri } = await ownerOf(request.params.uri);
    if (!subscribed.delete(naming.toClient(owner.namespace, uri))) return {};
    await relay(owner, channel, () => owner.subscription(uri, channel, false), mask);
    return {};
  });
  server.setRequestHandler('prompts/list', async () => ({
    prompts: [...(await promptMap(true)).values()].map((p) => p.prompt),
  }));
  server.setRequestHandler('prompts/get', async (request, extra) => {
    const target = await prompt(request.params.name);
    return relayRounds<GetPromptResult>(
      target.owner,
      extra,
      `prompts/get:${request.params.name}`,
      { method: 'prompts/get', params: { ...request.params, name: target.name } },
      GetPromptResultSchema,
    );
  });
  server.setRequestHandler('completion/complete', async (request, extra) => {
    const { ref } = request.params;
    let owner: DownstreamServer;
    let params = request.params;
    if (ref.type === 'ref/prompt') {
      const target = await prompt(ref.name);
      owner = target.owner;
      params = { ...params, ref: { ...ref, name: target.name } };
    } else {
      const target = await ownerOf(ref.uri);
      owner = target.owner;
      params = { ...params, ref: { ...ref, uri: target.uri } };
    }
    if (owner.capabilities()?.completions === undefined)
      return { completion: { values: [], hasMore: false } };
    return relay(
      owner,
      channel,
      (client) =>
        client.request({ method: 'completion/complete', params }, CompleteResultSchema, {
          signal: extra.mcpReq.signal,
        }),
      mask,
    );
  });
  server.setRequestHandler('logging/setLevel', async (request) => {
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

  server.setNotificationHandler('notifications/roots/list_changed', async () => {
    await Promise.allSettled(
      servers.map(({ server: downstream }) =>
        downstream.notifySession(channel, 'notifications/roots/list_changed'),
      ),
    );
  });

  // Updates relayed by a session's own downstream links name the server's URI: rename them.
  const stopRenaming = session.rewriteNotifications((method, params, origin) => {
    if (
      method !== 'notifications/resources/updated' ||
      origin === undefined ||
      typeof params?.uri !== 'string'
    )
      return params;
    return { ...params, uri: naming.toClient(origin, params.uri) };
  });
  // Notifications of the shared connections (sessions with links of their own get theirs there).
  const detach = servers.map(({ server: downstream }) =>
    downstream.onNotification((method, params) => {
      const send = (sent = params) => server.notification({ method, params: sent } as never).catch(() => {});
      if (method === 'notifications/message') {
        // A server's log message may quote its own configuration (a URL with a key, a header).
        params = params === undefined ? params : maskStrings(params, mask);
        const at = LEVELS.indexOf((params?.level as LoggingLevel) ?? 'info');
        if (level === undefined || at >= LEVELS.indexOf(level)) void send();
      } else if (method === 'notifications/resources/updated') {
        const uri = naming.toClient(downstream.namespace, String(params?.uri));
        if (subscribed.has(uri)) void send({ ...params, uri });
      } else if (
        method === 'notifications/resources/list_changed' ||
        method === 'notifications/prompts/list_changed'
      ) {
        if (method.includes('prompts')) prompts = undefined;
        void send();
      }
    }),
  );
  const close = () => {
    for (const off of detach) off();
    stopRenaming();
    for (const listed of subscribed) {
      void ownerOf(listed)
        .then(({ owner, uri }) => owner.subscription(uri, channel, false))
        .catch(() => {});
    }
    subscribed.clear();
  };
  const toolResult = (tool: Tool, result: ToolResult): ToolResult => {
    const owner = servers.find((s) => s.server.sourceId === tool.origin.sourceId)?.server;
    return owner ? naming.resultToClient(owner.namespace, result) : result;
  };
  return { toolResult, close };
}

function notFound(uri: string): ProtocolError {
  return protocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
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
    // A downstream message (or ours, naming the server's URL) may carry a configured credential;
    // a downstream server's own JSON-RPC error goes on without a second prefix.
    if (error instanceof ProtocolError) throw protocolError(error.code, mask(error.message), error.data);
    const failure = toGatewayError(error);
    throw protocolError(ProtocolErrorCode.InternalError, mask(failure.message), { code: failure.code });
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
