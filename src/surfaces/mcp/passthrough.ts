import type { Server } from '@modelcontextprotocol/server';
import type { Tool, ToolResult } from '../../foundation/model/tool.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { InputRounds } from './input-rounds.js';
import type { PassthroughAccess } from './passthrough/passthrough-access.js';
import { serveCompletions } from './passthrough/passthrough-completions.js';
import type { PassthroughContext } from './passthrough/passthrough-context.js';
import { serveLogging } from './passthrough/passthrough-logging.js';
import { servePrompts } from './passthrough/passthrough-prompts.js';
import type { PassthroughServer } from './passthrough/passthrough-relay.js';
import { serveResources } from './passthrough/passthrough-resources.js';
import { resourceNamingOf } from './resource-naming.js';
import type { SessionChannel } from './session-channel.js';

export type { PassthroughAccess } from './passthrough/passthrough-access.js';
export type { PassthroughRelay, PassthroughServer } from './passthrough/passthrough-relay.js';

/** A session's passthrough, once served. */
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

/** The capabilities a session with passthrough advertises: whatever downstream servers offer can be relayed. */
export const PASSTHROUGH_CAPABILITIES = {
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
} as const;

/**
 * The gateway as a faithful MCP proxy (docs/DESIGN.md §4), in every exposure mode: resources
 * (list, templates, read, subscribe), prompts (list, get), completions and logging of every
 * downstream server the session sees (`access.sees`: a confined caller sees the servers of its
 * toolsets' tools) are served on this session, reads, gets and subscriptions passing the gate
 * tool calls pass (`access.gate`), each capability by its own module in `passthrough/` over the
 * `PassthroughRelay` port. With several servers, resource URIs and names carry the server's
 * namespace (`ResourceNaming`: `aperture://<namespace>/<uri>`), so two servers exposing the same
 * URIs stay apart; reads, subscriptions, templates and completions go back to that server with its
 * own URI. A URI in a server's own form is routed to the server that listed it (or whose template
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
  access: PassthroughAccess = {},
): Passthrough {
  const naming = resourceNamingOf(servers);
  const context: PassthroughContext = { server, servers, session, log, mask, rounds, naming, access };
  const resources = serveResources(context);
  const prompts = servePrompts(context);
  serveCompletions(context, prompts, resources.routes);
  const stopLogging = serveLogging(context);
  // The client's roots changed: each server that asked this session for them hears it on its link.
  server.setNotificationHandler('notifications/roots/list_changed', async () => {
    await Promise.allSettled(
      servers.map(({ server: downstream }) =>
        downstream.notifySession(session.channel, 'notifications/roots/list_changed'),
      ),
    );
  });
  const close = () => {
    stopLogging();
    prompts.close();
    resources.close();
  };
  const toolResult = (tool: Tool, result: ToolResult): ToolResult => {
    const owner = servers.find((s) => s.server.sourceId === tool.origin.sourceId)?.server;
    return owner ? naming.resultToClient(owner.namespace, result) : result;
  };
  return { toolResult, close };
}
