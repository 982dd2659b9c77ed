import {
  ProtocolErrorCode,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  UriTemplate,
} from '@modelcontextprotocol/server';
import { protocolError } from '../protocol-error.js';
import { outsideScope } from './passthrough-access.js';
import {
  type Gathered,
  gather,
  offering,
  type PassthroughContext,
  pages,
  sees,
} from './passthrough-context.js';
import type { PassthroughRelay } from './passthrough-relay.js';

/** A resource URI in its server's own form, and that server. */
export interface ResourceRoute {
  owner: PassthroughRelay;
  uri: string;
}

/**
 * Which downstream server a client-facing resource URI belongs to. Listing resources and
 * templates (named for the client by `ResourceNaming`) remembers who listed what; a URI is routed
 * by the namespace it names, else to the server that listed it or whose template matches it.
 */
export class ResourceRoutes {
  /** Client-facing URI → the server that listed it. */
  private readonly listed = new Map<string, PassthroughRelay>();
  /** Client-facing templates → their server. */
  private readonly templates: { template: UriTemplate; owner: PassthroughRelay }[] = [];

  constructor(private readonly context: PassthroughContext) {}

  /** Every server's resources the session sees, named for the client (`resources/list`), and their hints. */
  async listResources(): Promise<Gathered<Resource>> {
    const { naming } = this.context;
    const found = await gather(this.context, 'resources', (client, owner) =>
      pages((cursor) =>
        client.listResources(cursor).then((r) => ({ items: r.resources, next: r.nextCursor, raw: r })),
      ).then(({ items, hint }) => ({
        hint,
        items: items.map((resource) => ({
          resource: {
            ...resource,
            uri: naming.toClient(owner.namespace, resource.uri),
            name: naming.nameToClient(owner.namespace, resource.name),
          },
          owner,
        })),
      })),
    );
    for (const { resource, owner } of found.items)
      if (!this.listed.has(resource.uri)) this.listed.set(resource.uri, owner);
    return { items: found.items.map((f) => f.resource), hints: found.hints };
  }

  /** Every server's resource templates the session sees, named for the client, and their hints. */
  async listTemplates(): Promise<Gathered<ResourceTemplate>> {
    const { naming } = this.context;
    const found = await gather(this.context, 'resources', (client, owner) =>
      pages((cursor) =>
        client
          .listResourceTemplates(cursor)
          .then((r) => ({ items: r.resourceTemplates, next: r.nextCursor, raw: r })),
      ).then(({ items, hint }) => ({
        hint,
        items: items.map((template) => ({
          template: {
            ...template,
            uriTemplate: naming.toClient(owner.namespace, template.uriTemplate),
            name: naming.nameToClient(owner.namespace, template.name),
          },
          owner,
        })),
      })),
    );
    this.templates.length = 0;
    for (const { template, owner } of found.items) {
      try {
        this.templates.push({ template: new UriTemplate(template.uriTemplate), owner });
      } catch {
        // A template the SDK cannot parse cannot route anything.
      }
    }
    return { items: found.items.map((f) => f.template), hints: found.hints };
  }

  /**
   * The server a client-facing URI belongs to, and the URI in that server's own form: the
   * namespace a namespaced URI names; else the server that listed the URI, or one whose template
   * matches it (listing again once when nothing known matches).
   */
  async ownerOf(uri: string): Promise<ResourceRoute> {
    const { naming, servers } = this.context;
    const resolved = naming.fromClient(uri);
    if (resolved.namespace !== undefined && naming.isNamespaced(resolved.namespace)) {
      const owner = servers.find((s) => s.server.namespace === resolved.namespace)?.server;
      if (!owner) throw resourceNotFound(uri);
      // A server outside the session's toolsets: refused, not relayed.
      if (!sees(this.context, owner)) throw outsideScope(`Resource ${uri}`, owner);
      return { owner, uri: resolved.uri };
    }
    const direct = this.known(uri);
    if (direct) return { owner: direct, uri };
    const candidates = offering(this.context, 'resources');
    if (candidates.length === 1 && candidates[0]) return { owner: candidates[0], uri };
    await Promise.all([this.listResources(), this.listTemplates()]);
    const found = this.known(uri);
    if (found) return { owner: found, uri };
    throw resourceNotFound(uri);
  }

  private known(uri: string): PassthroughRelay | undefined {
    const { naming } = this.context;
    return (
      this.listed.get(uri) ??
      this.templates.find((t) => t.template.match(uri))?.owner ??
      // A server's own URI, of a server whose URIs are namespaced: whoever lists it in that form.
      [...this.listed.entries()].find(([listed, o]) => naming.toClient(o.namespace, uri) === listed)?.[1] ??
      this.templates.find((t) => t.template.match(naming.toClient(t.owner.namespace, uri)))?.owner
    );
  }
}

/** The answer to a URI no server is known to serve (-32602). */
export function resourceNotFound(uri: string) {
  return protocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
}
