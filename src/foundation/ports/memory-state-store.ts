import { GatewayError } from '../model/gateway-error.js';
import type { StateStore, StateValue } from './state-store.js';

/** Deep copy, so that nobody holds a reference into the store (bytes stay bytes). */
function copy(value: StateValue): StateValue {
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value)) return value.map(copy);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)]));
  }
  return value;
}

/** The reference {@link StateStore}: everything in memory, gone with the process. */
export class MemoryStateStore implements StateStore {
  private readonly scopes = new Map<string, Map<string, StateValue>>();
  private closed = false;

  private scope(name: string): Map<string, StateValue> {
    if (this.closed) throw new GatewayError('internal', 'the state store is closed');
    let scope = this.scopes.get(name);
    if (!scope) {
      scope = new Map();
      this.scopes.set(name, scope);
    }
    return scope;
  }

  get(scope: string, key: string): StateValue | undefined {
    const value = this.scope(scope).get(key);
    return value === undefined ? undefined : copy(value);
  }

  set(scope: string, key: string, value: StateValue): void {
    this.scope(scope).set(key, copy(value));
  }

  getMany(scope: string, keys: readonly string[]): Map<string, StateValue> {
    const found = new Map<string, StateValue>();
    for (const key of keys) {
      const value = this.get(scope, key);
      if (value !== undefined) found.set(key, value);
    }
    return found;
  }

  setMany(scope: string, entries: readonly (readonly [string, StateValue])[]): void {
    const copies = entries.map(([key, value]) => [key, copy(value)] as const);
    const target = this.scope(scope);
    for (const [key, value] of copies) target.set(key, value);
  }

  delete(scope: string, key: string): void {
    this.scope(scope).delete(key);
  }

  entries(scope: string): [string, StateValue][] {
    return [...this.scope(scope)]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => [key, copy(value)]);
  }

  count(scope: string): number {
    return this.scope(scope).size;
  }

  close(): void {
    this.closed = true;
    this.scopes.clear();
  }
}
