/**
 * The state port: small, durable facts the gateway keeps across restarts — cached embeddings,
 * failure statistics, what searches led to successful runs. Keys live in named scopes (one per
 * concern). Values are JSON-serialisable data, or bytes (`Uint8Array`, e.g. a vector). Calls are
 * synchronous: the store is local (an embedded database, or memory) and each call is small.
 *
 * Implementations: `MemoryStateStore` (here), the SQLite store and the Redis-replicated store in
 * operations/state/; all run through `runStateStoreContract` (`state-store.contract.ts`). The
 * Redis store stays synchronous by keeping a local mirror (see `redis-state-store.ts`).
 */
export type StateValue =
  | Uint8Array
  | string
  | number
  | boolean
  | null
  | StateValue[]
  | { [key: string]: StateValue };

export interface StateStore {
  /** The value under `key` in `scope`, or undefined. Bytes come back as a `Uint8Array`. */
  get(scope: string, key: string): StateValue | undefined;
  /** Stores a copy of `value` (replacing any previous one). */
  set(scope: string, key: string, value: StateValue): void;
  /** Several values in one go; missing keys are absent from the map. */
  getMany(scope: string, keys: readonly string[]): Map<string, StateValue>;
  /** Several values in one transaction (all or none are written). */
  setMany(scope: string, entries: readonly (readonly [string, StateValue])[]): void;
  /** Removes a key; unknown keys are ignored. */
  delete(scope: string, key: string): void;
  /** Every entry of a scope, keys ascending. */
  entries(scope: string): [string, StateValue][];
  /** Entries in the scope. */
  count(scope: string): number;
  /** Flushes and releases the store; later calls throw. */
  close(): void;
  /**
   * Only in a store shared by several gateways (Redis): calls `listener` after another gateway
   * changed `key` of `scope` and this store took the change in (`get` now answers the new value,
   * or undefined when it was deleted). Never for this store's own writes. Those who keep a model
   * of a scope in memory (learned queries, failure statistics) follow it; returns the unsubscribe.
   */
  watch?(listener: (scope: string, key: string) => void): () => void;
}
