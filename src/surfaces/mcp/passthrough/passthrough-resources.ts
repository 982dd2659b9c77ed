import { ReadResourceResultSchema } from '@modelcontextprotocol/core';
import { isInputRequiredResult, type ReadResourceResult } from '@modelcontextprotocol/server';
import { gated } from './passthrough-access.js';
import {
  listHint,
  notifyClient,
  type PassthroughContext,
  relayRequest,
  sees,
} from './passthrough-context.js';
import { relayRounds } from './relay-rounds.js';
import { ResourceRoutes } from './resource-routes.js';

/** A session's resources passthrough, once served. */
export interface ResourcesPassthrough {
  routes: ResourceRoutes;
  /** Ends the session's subscriptions and stops relaying its updates. */
  close(): void;
}

/**
 * Serves every downstream server's resources on the session: list and templates (named for the
 * client), read (relayed to the owning server with its own URI; contents named as asked),
 * subscribe and unsubscribe (counted per server by the relay). Updates reach the session for the
 * URIs it subscribed to, renamed as listed, and list changes are passed on.
 */
export function serveResources(context: PassthroughContext): ResourcesPassthrough {
  const { server, session, naming, mask } = context;
  const channel = session.channel;
  const routes = new ResourceRoutes(context);
  /** Client-facing URIs this session subscribed to. */
  const subscribed = new Set<string>();

  server.setRequestHandler('resources/list', async (_request, extra) => {
    const { items, hints } = await routes.listResources();
    return { resources: items, ...listHint(context, extra, hints) };
  });
  server.setRequestHandler('resources/templates/list', async (_request, extra) => {
    const { items, hints } = await routes.listTemplates();
    return { resourceTemplates: items, ...listHint(context, extra, hints) };
  });
  server.setRequestHandler('resources/read', async (request, extra) => {
    const asked = request.params.uri;
    const { owner, uri } = await routes.ownerOf(asked);
    const result = await gated(
      context.access,
      owner,
      'resources/read',
      { uri: asked },
      extra,
      () =>
        relayRounds<ReadResourceResult>(
          context,
          owner,
          extra,
          `resources/read:${asked}`,
          { method: 'resources/read', params: { ...request.params, uri } },
          ReadResourceResultSchema,
        ),
      mask,
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
  server.setRequestHandler('resources/subscribe', async (request, extra) => {
    const { owner, uri } = await routes.ownerOf(request.params.uri);
    await gated(
      context.access,
      owner,
      'resources/subscribe',
      { uri: request.params.uri },
      extra,
      () => relayRequest(owner, channel, () => owner.subscription(uri, channel, true), mask),
      mask,
    );
    subscribed.add(naming.toClient(owner.namespace, uri));
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    const { owner, uri } = await routes.ownerOf(request.params.uri);
    if (!subscribed.delete(naming.toClient(owner.namespace, uri))) return {};
    await relayRequest(owner, channel, () => owner.subscription(uri, channel, false), mask);
    return {};
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
  // Updates of the shared connections (sessions with links of their own get theirs there).
  const detach = context.servers.map(({ server: downstream }) =>
    downstream.onNotification((method, params) => {
      if (method === 'notifications/resources/updated') {
        const uri = naming.toClient(downstream.namespace, String(params?.uri));
        if (subscribed.has(uri)) notifyClient(context, method, { ...params, uri });
      } else if (method === 'notifications/resources/list_changed' && sees(context, downstream)) {
        notifyClient(context, method, params);
      }
    }),
  );

  const close = () => {
    for (const off of detach) off();
    stopRenaming();
    for (const listed of subscribed) {
      void routes
        .ownerOf(listed)
        .then(({ owner, uri }) => owner.subscription(uri, channel, false))
        .catch(() => {});
    }
    subscribed.clear();
  };
  return { routes, close };
}
