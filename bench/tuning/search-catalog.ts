/**
 * What the search tuning scripts share: an evenly spaced sample of a query set, and a benchmark's
 * tools indexed the way the gateway indexes them (BM25F, the server documents, the vectors).
 */
import type { CatalogEntry } from '../../src/catalog/catalog-entry.js';
import { Bm25Index } from '../../src/discovery/bm25-index.js';
import { SemanticIndex } from '../../src/discovery/semantic-index.js';
import { ServerIndex } from '../../src/discovery/server-index.js';
import type { Embedder } from '../../src/foundation/embedder.js';
import type { StateStore } from '../../src/foundation/state-store.js';

/** `n` items spaced evenly over `items` (all of them when `n` is 0 or not smaller). */
export function evenlySpaced<T>(items: readonly T[], n: number): T[] {
  if (!n || n >= items.length) return [...items];
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

/** The three indexes of one catalog, the vectors computed (or read from the store's cache). */
export async function indexCatalog(entries: readonly CatalogEntry[], embedder: Embedder, store: StateStore) {
  const bm25 = new Bm25Index();
  const servers = new ServerIndex();
  const semantic = new SemanticIndex({ embedder, store });
  for (const { tool } of entries) {
    bm25.upsert(tool);
    servers.upsert(tool);
    semantic.upsert(tool);
  }
  await semantic.whenIdle();
  const namespaceOf = new Map(entries.map(({ tool }) => [tool.id, tool.namespace]));
  return { bm25, servers, semantic, namespaceOf };
}
