import type { Tool } from '../foundation/model/tool.js';
import { Bm25Index, type Bm25IndexOptions } from './bm25-index.js';
import type { SearchExtras, WeightedText } from './search-index.js';

/** Characters of each tool's description that go into its server's document. */
const DESCRIPTION_CHARS = 300;

/**
 * The servers (namespaces) of a catalog as documents of their own, for the server stage of search
 * (docs/SEARCH.md, "Server, then tool"): a namespace's document is its name — read as a product
 * name, so "stripe" or "kubernetes" in a query finds every tool of that server — plus the names,
 * titles, description openings and parameter names of all its tools. A query that matches a server
 * as a whole (several of its tools, or its name) lifts that server's tools, which is how real
 * catalogs are organised: a request is first about a product, then about one of its operations.
 *
 * Kept in sync one tool at a time; a namespace whose tools changed is re-indexed lazily, on the
 * next query, so a source replacing a thousand tools re-indexes its namespace once.
 */
export class ServerIndex {
  private readonly index: Bm25Index;
  private readonly members = new Map<string, Map<string, { tool: Tool; learned: string }>>();
  private readonly namespaceOf = new Map<string, string>();
  private readonly dirty = new Set<string>();

  /** @param bm25 the BM25F parameters (the tool index's, so both read text alike). */
  constructor(bm25: Bm25IndexOptions = {}) {
    // A server's name is matched as a word of its document, never lifted as an exact tool match.
    this.index = new Bm25Index({ ...bm25, exactMatchBoost: false });
  }

  /** Number of namespaces with at least one tool. */
  get size(): number {
    return this.members.size;
  }

  /**
   * Adds or replaces a tool (its namespace may have changed). `extra.learned`, the queries it
   * learned from use, joins its server's document as that document's `learned` field: a tool found
   * by what it learned must find its server by the same words, or the stage would sink it.
   */
  upsert(tool: Tool, extra: SearchExtras = {}): void {
    this.remove(tool.id);
    let members = this.members.get(tool.namespace);
    if (!members) {
      members = new Map();
      this.members.set(tool.namespace, members);
    }
    members.set(tool.id, { tool, learned: extra.learned ?? '' });
    this.namespaceOf.set(tool.id, tool.namespace);
    this.dirty.add(tool.namespace);
  }

  /** Removes a tool; unknown ids are ignored. */
  remove(id: string): void {
    const namespace = this.namespaceOf.get(id);
    if (namespace === undefined) return;
    this.namespaceOf.delete(id);
    const members = this.members.get(namespace)!;
    members.delete(id);
    if (members.size === 0) this.members.delete(namespace);
    this.dirty.add(namespace);
  }

  /**
   * Each matching namespace's BM25F score against `query`, divided by the best one, so the best
   * server scores 1 and the scale is the query's own. Empty when no server matches, or when the
   * catalog has a single namespace (a server stage cannot tell anything apart then).
   */
  scores(query: string, added?: WeightedText): Map<string, number> {
    this.sync();
    if (this.members.size < 2) return new Map();
    const hits = this.index.search(query, { limit: this.members.size, added });
    const best = hits[0]?.score ?? 0;
    return new Map(hits.map((hit) => [hit.id, hit.score / best]));
  }

  private sync(): void {
    for (const namespace of this.dirty) {
      const members = this.members.get(namespace);
      if (members) {
        const list = [...members.values()];
        const learned = list
          .map((member) => member.learned)
          .filter(Boolean)
          .join(' \n ');
        this.index.upsert(
          serverDocument(
            namespace,
            list.map((member) => member.tool),
          ),
          learned ? { learned } : {},
        );
      } else this.index.remove(namespace);
    }
    this.dirty.clear();
  }
}

/** One namespace as a tool-shaped document, so the BM25F fields weigh its parts as for tools. */
function serverDocument(namespace: string, tools: readonly Tool[]): Tool {
  const properties: Record<string, { type: 'string' }> = {};
  const lines: string[] = [];
  for (const tool of tools) {
    lines.push(`${tool.title ?? tool.name}. ${tool.description.slice(0, DESCRIPTION_CHARS)}`);
    const props = tool.inputSchema.properties;
    if (props && typeof props === 'object')
      for (const key of Object.keys(props)) properties[key] = { type: 'string' };
  }
  return {
    id: namespace,
    namespace,
    name: namespace,
    description: lines.join('\n'),
    inputSchema: { type: 'object', properties },
    annotations: {},
    tags: [],
    metadata: {},
    examples: [],
    origin: { sourceId: 'server-index', kind: 'server-index', originalName: namespace },
  };
}
