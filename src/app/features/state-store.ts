import { openSearchBacking, type SearchBacking } from '../search-parts.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** The durable state (embeddings, failure statistics, learned queries, trust, tokens) and the embedder. */
    searchBacking: SearchBacking;
  }
}

/**
 * The state store every other feature keeps its state in (the shared one with Redis) and, for
 * vector strategies, the embedder. Closed after everything that writes to it.
 */
export const stateStore: FeatureFactory = (config, parts) => {
  const { log, loaded, options } = parts.gateway;
  const shared = parts.need('shared');
  const backing = openSearchBacking(config, loaded().baseDir, {
    ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
    ...(shared ? { state: shared.store } : {}),
    log: log.child({ component: 'state' }),
  });
  parts.provide('searchBacking', backing);
  return { name: 'state-store', close: () => backing.close() };
};
