import { createSearchStack } from '../../composition/search-stack.js';
import { maskStrings } from '../../operations/secrets/secret-masker.js';
import { RedisSessionSearches } from '../../operations/state/redis-session-searches.js';
import { LiveSearch } from '../live-search.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** Search with its feedback loop and, for hybrid, its vectors; a reload may rebuild it. */
    search: LiveSearch;
  }
}

/**
 * How long a stdio-only gateway waits before it builds the search index: past a client's
 * `initialize` and first `tools/list` (some 20 ms of indexing no longer delay them).
 */
export const STDIO_INDEX_DELAY_MS = 250;

/**
 * Search and its feedback (failures, learning from use) in the `search-feedback` slot. The index
 * is built at start, after the sources and skills, rather than on the first query; serving stdio
 * only, the client's first requests (initialize, tools/list) need no index: it is built just
 * after, and a search that comes first builds it itself. A reload rebuilds search with the new
 * settings, unless they need another embedder (a restart).
 */
export const search: FeatureFactory = (config, parts) => {
  const { log, options, maskSecrets } = parts.gateway;
  const catalog = parts.need('catalog');
  const { state, embedder } = parts.need('searchBacking');
  const observer = parts.need('observability').search;
  const shared = parts.need('shared');
  // Behind a balancer a search and the run it led to may land on two replicas: the session's
  // searches are kept in Redis, for as long as the session may stay idle.
  const sessionSearches = shared
    ? new RedisSessionSearches({
        redis: shared.connection.client,
        prefix: shared.connection.prefix,
        ttlMs: config.http.sessionIdleMs,
      })
    : undefined;
  const live = new LiveSearch(
    (settings) =>
      createSearchStack({
        catalog,
        settings,
        store: state,
        ...(embedder ? { embedder } : {}),
        ...(observer ? { observer } : {}),
        ...(sessionSearches ? { sessionSearches } : {}),
        log: log.child({ component: 'search' }),
      }),
    config.search,
    embedder !== undefined,
  );
  parts.provide('search', live);
  let indexing: NodeJS.Timeout | undefined;
  return {
    name: 'search',
    middleware: { 'search-feedback': live.feedback },
    start: () => {
      catalog.flush();
      if (options.http) {
        live.stack.search.refresh();
        return;
      }
      indexing = setTimeout(() => {
        try {
          live.stack.search.refresh();
        } catch (error) {
          // The next search tries again; a timer must not end the process.
          log.warn({ err: error instanceof Error ? error.message : String(error) }, 'search index not built');
        }
      }, STDIO_INDEX_DELAY_MS);
      indexing.unref();
    },
    reload: {
      search: (next) => live.replace(parts.config().search, next.config.search, parts.need('scopeDeps')),
    },
    readiness: () => {
      const { semantic, memory, search: current } = live.stack;
      // Vectors are not a readiness condition: search answers with BM25 until they are ready.
      return {
        search: {
          strategy: current.strategy,
          ...(semantic ? { vectors: maskStrings(semantic.status(), maskSecrets) } : {}),
          ...(memory ? { learnedQueries: maskStrings(memory.status(), maskSecrets) } : {}),
        },
      };
    },
    close: () => {
      clearTimeout(indexing);
      live.close();
    },
  };
};
