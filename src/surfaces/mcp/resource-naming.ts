import type { ToolResult } from '../../foundation/model/tool.js';

/** The scheme of namespaced resource URIs: `aperture://<namespace>/<the server's own URI>`. */
export const RESOURCE_URI_PREFIX = 'aperture://';

/** The part of a downstream server that decides how its resources are named in flat exposure. */
export interface ResourceNamingServer {
  namespace: string;
  /** `false`: the server's URIs and names are kept as they are (like its tool names). */
  prefix: boolean;
}

/** A client-facing resource URI taken apart: whose it is, and the server's own URI. */
export interface ResolvedResourceUri {
  /** The namespace the URI names; undefined for a URI in a server's own form. */
  namespace?: string;
  uri: string;
}

/**
 * How flat exposure names downstream resources. With several servers, two of them may expose
 * the same URIs (two instances of one server, `file:///` on two machines): each server's URIs
 * become `aperture://<namespace>/<uri>` and its resource names `<namespace>__<name>`, the way
 * tools are named. A pure, reversible function of the configuration, never of what servers
 * happen to list, so a URI a client kept stays valid: a gateway with a single server, or a server
 * with `prefix: false`, keeps its URIs exactly as the server wrote them.
 */
export class ResourceNaming {
  private readonly namespaced: ReadonlySet<string>;

  constructor(servers: readonly ResourceNamingServer[]) {
    this.namespaced = new Set(
      servers.length > 1 ? servers.filter((s) => s.prefix).map((s) => s.namespace) : [],
    );
  }

  /** True when `namespace`'s URIs are rewritten. */
  isNamespaced(namespace: string): boolean {
    return this.namespaced.has(namespace);
  }

  /** The URI (or URI template: the prefix is literal text in one) a client sees. */
  toClient(namespace: string, uri: string): string {
    return this.isNamespaced(namespace)
      ? `${RESOURCE_URI_PREFIX}${encodeURIComponent(namespace)}/${uri}`
      : uri;
  }

  /** A tool result of `namespace`'s server with the resources it links or embeds renamed. */
  resultToClient(namespace: string, result: ToolResult): ToolResult {
    if (!this.isNamespaced(namespace) || !Array.isArray(result.content)) return result;
    const rename = (uri: string) => this.toClient(namespace, uri);
    return {
      ...result,
      content: result.content.map((block) => {
        if (block.type === 'resource_link') return { ...block, uri: rename(block.uri) };
        if (block.type === 'resource')
          return { ...block, resource: { ...block.resource, uri: rename(block.resource.uri) } };
        return block;
      }),
    };
  }

  /** The resource name a client sees. */
  nameToClient(namespace: string, name: string): string {
    return this.isNamespaced(namespace) ? `${namespace}__${name}` : name;
  }

  /**
   * The inverse of `toClient`: a namespaced URI gives its namespace and the server's URI; any
   * other URI is a server's own (of a server that is not namespaced, or one a client learnt
   * from the server's documentation) and is routed by who lists it.
   */
  fromClient(uri: string): ResolvedResourceUri {
    if (!uri.startsWith(RESOURCE_URI_PREFIX)) return { uri };
    const rest = uri.slice(RESOURCE_URI_PREFIX.length);
    const slash = rest.indexOf('/');
    if (slash <= 0) return { uri };
    let namespace: string;
    try {
      namespace = decodeURIComponent(rest.slice(0, slash));
    } catch {
      return { uri };
    }
    return { namespace, uri: rest.slice(slash + 1) };
  }
}
