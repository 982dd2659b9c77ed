import type { Tool, ToolResult } from '../../foundation/model/tool.js';
import { renameToolUiUri, UI_URI_SCHEME } from '../../foundation/model/tool-ui.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { SKILL_SCHEME } from './skills/skill-uris.js';

/** The scheme of namespaced resource URIs: `aperture://<namespace>/<the server's own URI>`. */
export const RESOURCE_URI_PREFIX = 'aperture://';

/** The part of a downstream server that decides how its resources are named in flat exposure. */
export interface ResourceNamingServer {
  namespace: string;
  /** `false`: the server's URIs and names are kept as they are (like its tool names). */
  prefix: boolean;
  /** The server's source id: its tools are known by it (`Tool.origin.sourceId`). */
  sourceId?: string;
}

/**
 * The naming of a session's downstream servers (`PassthroughServer`s: the server with its
 * `prefix` setting): the one the passthrough uses, with source ids so tools find theirs.
 */
export function resourceNamingOf(
  servers: readonly { server: { namespace: string; sourceId: string }; prefix: boolean }[],
): ResourceNaming {
  return new ResourceNaming(
    servers.map((s) => ({ namespace: s.server.namespace, prefix: s.prefix, sourceId: s.server.sourceId })),
  );
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
 *
 * MCP App resources (`ui://`, SEP-1865) keep their scheme, for a host renders only `ui://`
 * resources: `ui://<rest>` becomes `ui://<namespace>/<rest>`, in `resources/list`, in a tool's
 * `_meta.ui.resourceUri` (and the flat `ui/resourceUri`) and in results alike, and a read of it
 * goes back to the server as `ui://<rest>`. Skill files (`skill://`, SEP-2640) keep theirs the
 * same way, so `resources/list` names them as `skills/list` does (`skill-uris.ts`).
 */
export class ResourceNaming {
  private readonly namespaced: ReadonlySet<string>;
  /** Source id → namespace, for servers that said theirs. */
  private readonly sources: ReadonlyMap<string, string>;

  constructor(servers: readonly ResourceNamingServer[]) {
    this.namespaced = new Set(
      servers.length > 1 ? servers.filter((s) => s.prefix).map((s) => s.namespace) : [],
    );
    this.sources = new Map(
      servers.flatMap((s) => (s.sourceId === undefined ? [] : [[s.sourceId, s.namespace] as const])),
    );
  }

  /** What the naming depends on, as a string: two namings with one key name every URI alike. */
  get key(): string {
    return [...this.namespaced].sort().join('\n');
  }

  /** True when `namespace`'s URIs are rewritten. */
  isNamespaced(namespace: string): boolean {
    return this.namespaced.has(namespace);
  }

  /** The URI (or URI template: the prefix is literal text in one) a client sees. */
  toClient(namespace: string, uri: string): string {
    if (!this.isNamespaced(namespace)) return uri;
    const scheme = keptScheme(uri);
    if (scheme !== undefined) return `${scheme}${encodeURIComponent(namespace)}/${uri.slice(scheme.length)}`;
    return `${RESOURCE_URI_PREFIX}${encodeURIComponent(namespace)}/${uri}`;
  }

  /**
   * A tool result of `namespace`'s server with the resources it links or embeds renamed, and
   * the app resource its `_meta` names (`_meta.ui.resourceUri`, `ui/resourceUri`).
   */
  resultToClient(namespace: string, result: ToolResult): ToolResult {
    if (!this.isNamespaced(namespace)) return result;
    const renamed = this.resultMetaToClient(namespace, result);
    if (!Array.isArray(renamed.content)) return renamed;
    const rename = (uri: string) => this.toClient(namespace, uri);
    return {
      ...renamed,
      content: renamed.content.map((block) => {
        if (block.type === 'resource_link') return { ...block, uri: rename(block.uri) };
        if (block.type === 'resource')
          return { ...block, resource: { ...block.resource, uri: rename(block.resource.uri) } };
        return block;
      }),
    };
  }

  /**
   * A tool result with only the app resource of its `_meta` renamed (`run_tool`, whose content
   * is the server's as it came); the same object when there is nothing to rename.
   */
  resultMetaToClient(namespace: string, result: ToolResult): ToolResult {
    if (!this.isNamespaced(namespace) || !isRecord(result._meta)) return result;
    const meta = this.metaToClient(namespace, result._meta);
    return meta === result._meta ? result : { ...result, _meta: meta };
  }

  /**
   * A `_meta` of `namespace`'s server (a tool's, a result's) with its app resource URI named for
   * the client; the same object when the server is not namespaced or names no app.
   */
  metaToClient(namespace: string, meta: Record<string, unknown>): Record<string, unknown> {
    if (!this.isNamespaced(namespace)) return meta;
    return renameToolUiUri(meta, (uri) => this.toClient(namespace, uri));
  }

  /** A catalogued tool's `_meta` as the client sees it (its server found by source id). */
  toolMetaToClient(tool: Pick<Tool, 'meta' | 'namespace' | 'origin'>): Record<string, unknown> | undefined {
    if (tool.meta === undefined) return undefined;
    return this.metaToClient(this.namespaceOf(tool), tool.meta);
  }

  /** A catalogued tool's app resource URI as the client reads it; undefined without one. */
  toolUiUriToClient(tool: Pick<Tool, 'ui' | 'namespace' | 'origin'>): string | undefined {
    const uri = tool.ui?.resourceUri;
    return uri === undefined ? undefined : this.toClient(this.namespaceOf(tool), uri);
  }

  /** The namespace of the server a tool comes from: by its source, else its own namespace. */
  namespaceOf(tool: Pick<Tool, 'namespace' | 'origin'>): string {
    return this.sources.get(tool.origin.sourceId) ?? tool.namespace;
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
    const scheme = keptScheme(uri);
    if (scheme !== undefined) return this.keptFromClient(scheme, uri);
    if (!uri.startsWith(RESOURCE_URI_PREFIX)) return { uri };
    const split = splitNamespace(uri.slice(RESOURCE_URI_PREFIX.length));
    return split === undefined ? { uri } : { namespace: split.namespace, uri: split.rest };
  }

  /**
   * `ui://<namespace>/<rest>` (or `skill://…`) of a namespaced server → that namespace and
   * `ui://<rest>`. Such a URI whose first segment names no namespaced server is a server's own (a
   * single server, or one with `prefix: false`, keeps its URIs), so it is returned whole.
   */
  private keptFromClient(scheme: string, uri: string): ResolvedResourceUri {
    const split = splitNamespace(uri.slice(scheme.length));
    if (split === undefined || !this.isNamespaced(split.namespace)) return { uri };
    return { namespace: split.namespace, uri: `${scheme}${split.rest}` };
  }
}

/** The schemes a namespaced URI keeps (hosts and clients act on the scheme): `ui://`, `skill://`. */
const KEPT_SCHEMES = [UI_URI_SCHEME, SKILL_SCHEME] as const;

function keptScheme(uri: string): string | undefined {
  return KEPT_SCHEMES.find((scheme) => uri.startsWith(scheme));
}

/** `<namespace>/<rest>` taken apart (the namespace URI-decoded), or undefined when it is not one. */
function splitNamespace(path: string): { namespace: string; rest: string } | undefined {
  const slash = path.indexOf('/');
  if (slash <= 0) return undefined;
  try {
    return { namespace: decodeURIComponent(path.slice(0, slash)), rest: path.slice(slash + 1) };
  } catch {
    return undefined;
  }
}
