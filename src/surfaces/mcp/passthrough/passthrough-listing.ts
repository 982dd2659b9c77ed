import {
  type Prompt,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  Server,
} from '@modelcontextprotocol/server';
import type { Logger } from '../../../foundation/ports/logger.js';
import { ResourceNaming } from '../resource-naming.js';
import { createSessionChannel } from '../session-channel.js';
import type { PassthroughContext } from './passthrough-context.js';
import { listPrompts } from './passthrough-prompts.js';
import type { PassthroughRelay, PassthroughServer } from './passthrough-relay.js';
import { ResourceRoutes } from './resource-routes.js';

/** The downstream prompts, resources and templates one caller is served, named as its sessions name them. */
export interface PassthroughListing {
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

/**
 * What a session of the caller would list (`prompts/list`, `resources/list`,
 * `resources/templates/list`), outside any session — for the manifest: the same naming, the same
 * confinement (`sees`), over the servers' shared connections. A server that fails to answer is
 * left out (logged), as in a session.
 */
export async function passthroughListing(
  servers: readonly PassthroughServer[],
  log: Logger,
  sees?: (server: PassthroughRelay) => boolean,
): Promise<PassthroughListing> {
  const naming = new ResourceNaming(
    servers.map((s) => ({ namespace: s.server.namespace, prefix: s.prefix })),
  );
  // No client behind it: the channel of a server never connected asks nothing of anyone, so
  // every request goes on the servers' shared connections.
  const server = new Server({ name: 'listing', version: '0' }, { capabilities: {} });
  const context: PassthroughContext = {
    server,
    servers,
    session: createSessionChannel(server),
    log,
    mask: (text) => text,
    rounds: undefined,
    naming,
    access: sees ? { sees } : {},
  };
  const routes = new ResourceRoutes(context);
  const [prompts, resources, templates] = await Promise.all([
    listPrompts(context),
    routes.listResources(),
    routes.listTemplates(),
  ]);
  return {
    prompts: [...prompts.map.values()].map((p) => p.prompt),
    resources: resources.items,
    resourceTemplates: templates.items,
  };
}
