import { CompleteResultSchema } from '@modelcontextprotocol/core';
import { type PassthroughContext, relayRequest } from './passthrough-context.js';
import type { PromptsPassthrough } from './passthrough-prompts.js';
import type { PassthroughRelay } from './passthrough-relay.js';
import type { ResourceRoutes } from './resource-routes.js';

/**
 * Serves `completion/complete` on the session: the reference (a prompt, or a resource template's
 * URI) is routed to its server and renamed to that server's own name or URI. A server that offers
 * no completions gets no request: the client gets an empty completion.
 */
export function serveCompletions(
  context: PassthroughContext,
  prompts: Pick<PromptsPassthrough, 'route'>,
  resources: Pick<ResourceRoutes, 'ownerOf'>,
): void {
  const channel = context.session.channel;
  context.server.setRequestHandler('completion/complete', async (request, extra) => {
    const { ref } = request.params;
    let owner: PassthroughRelay;
    let params = request.params;
    if (ref.type === 'ref/prompt') {
      const target = await prompts.route(ref.name);
      owner = target.owner;
      params = { ...params, ref: { ...ref, name: target.name } };
    } else {
      const target = await resources.ownerOf(ref.uri);
      owner = target.owner;
      params = { ...params, ref: { ...ref, uri: target.uri } };
    }
    if (owner.capabilities()?.completions === undefined)
      return { completion: { values: [], hasMore: false } };
    return relayRequest(
      owner,
      channel,
      (client) =>
        client.request({ method: 'completion/complete', params }, CompleteResultSchema, {
          signal: extra.mcpReq.signal,
        }),
      context.mask,
    );
  });
}
