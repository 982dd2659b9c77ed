import { randomUUID } from 'node:crypto';
import type { Logger } from '../../foundation/ports/logger.js';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import type { StateStore, StateValue } from '../../foundation/ports/state-store.js';
import type { RedisConnection } from './redis-connection.js';

/** Options of {@link RedisStateStore}. */
export interface RedisStateStoreOptions {
  connection: RedisConnection;
  log: Logger;
}

/** What one gateway tells the others after it wrote: which keys of which scope changed. */
interface ChangeMessage {
  from: string;
  scope: string;
  keys: string[];
}

const TOMBSTONE = Symbol('deleted');

/** How long after finding Redis empty a store reads it again, for what others wrote back. */
const RESEED_SETTLE_MS = 1000;
type Pending = StateValue | typeof TOMBSTONE;

/**
 * A {@link StateStore} shared by every gateway on one Redis, as a **replicated store**: each
 * gateway keeps a full local mirror (a {@link MemoryStateStore}) and answers every read from it,
 * synchronously, as the SQLite store does. Writes are applied to the mirror at once, then written
 * through to Redis (one hash per scope) and published; the other gateways fetch the keys named in
 * the message and apply them to their mirrors, then tell their `watch` listeners.
 *
 * Why not make the port asynchronous instead: its callers (search ranking, learned queries,
 * failure statistics, the trust gate, OAuth tokens) read it on hot, synchronous paths, and what
 * it holds is small (caches and learned signals, a few MB). A mirror keeps them exactly as they
 * are, makes a read never wait for the network, and lets a gateway that lost Redis go on serving
 * from what it knows. The price is eventual consistency: a write reaches the others a round trip
 * later, and two gateways writing the same key at once keep the last one written (each key is a
 * whole value: learned queries of one tool, failures of one tool, one token set).
 *
 * Lifecycle: {@link hydrate} loads everything from Redis (the gateway awaits it before it is
 * ready). While Redis is down, writes stay in the mirror and are remembered; when it is back they
 * are written, then the mirror is hydrated again so it takes in what the others wrote meanwhile
 * (a message published while this gateway was away is lost, the hydration makes up for it).
 */
export class RedisStateStore implements StateStore {
  private readonly local = new MemoryStateStore();
  private readonly id = randomUUID();
  private readonly listeners = new Set<(scope: string, key: string) => void>();
  /** Writes that did not reach Redis, by scope and key: written again when it is back. */
  private readonly pending = new Map<string, Map<string, Pending>>();
  /** Keys written locally while a hydration was reading, so it does not undo them. */
  private writtenDuringHydration: Set<string> | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly channel: string;
  private readonly keyPrefix: string;
  private readonly offHealth: () => void;
  /** Whether `hydrate` was called: from then on every recovery of Redis hydrates again. */
  private attempted = false;
  private closed = false;

  constructor(private readonly options: RedisStateStoreOptions) {
    const { connection } = options;
    this.keyPrefix = `${connection.prefix}state:`;
    this.channel = `${connection.prefix}state-changes`;
    connection.subscriber.on('messageBuffer', this.onMessage);
    // Not tracked by `settled`: while Redis is down the subscription waits in the subscriber's
    // queue (ioredis subscribes again by itself after every reconnect).
    connection.subscriber.subscribe(this.channel).catch(() => {});
    this.offHealth = connection.health.onChange((health) => {
      // Back after an outage, or up at last after a first hydration that failed: catch up.
      if (health.state === 'up' && this.attempted) this.track(this.catchUp());
    });
  }

  /**
   * Loads every scope from Redis into the mirror (replacing what it held, except writes made
   * since), and tells watchers of each key that changed. Rejects when Redis cannot be read.
   */
  async hydrate(): Promise<void> {
    this.attempted = true;
    const { client } = this.options.connection;
    const written = new Set<string>();
    this.writtenDuringHydration = written;
    try {
      const snapshot = new Map<string, Map<string, StateValue>>();
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(
          cursor,
          'MATCH',
          `${escapeGlob(this.keyPrefix)}*`,
          'COUNT',
          500,
        );
        cursor = next;
        for (const key of keys) {
          const scope = key.slice(this.keyPrefix.length);
          const fields = await client.hgetallBuffer(key);
          const values = new Map<string, StateValue>();
          for (const [field, raw] of Object.entries(fields)) {
            const value = decode(raw);
            if (value !== undefined) values.set(field, value);
          }
          snapshot.set(scope, values);
        }
      } while (cursor !== '0');
      if (this.closed) return;
      const { epoch, created } = await this.currentEpoch();
      // A Redis that lost its data (restarted without persistence, flushed) has a new epoch: what
      // this gateway still knows is written back rather than forgotten. Otherwise a key missing
      // from Redis was deleted by another gateway, and is deleted here too.
      const reseed = this.epoch !== undefined && epoch !== this.epoch;
      this.epoch = epoch;
      const reseeded = this.applySnapshot(snapshot, written, reseed);
      for (const [scope, entries] of reseeded) await this.send(scope, entries);
      // This store found Redis empty: others that knew more may be writing back what they know
      // (their reseed) while this store's subscription is not back yet. Read again shortly.
      if (created) this.readAgainSoon();
      if (reseeded.size > 0) {
        this.options.log.info(
          { scopes: reseeded.size },
          'Redis had lost the shared state; wrote back what this gateway knows',
        );
      }
    } finally {
      if (this.writtenDuringHydration === written) this.writtenDuringHydration = undefined;
    }
  }

  /** Resolves once every write made so far was sent (or failed and was kept for later). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Writes not yet in Redis (for readiness: they are written when Redis is back). */
  get unsynced(): number {
    let n = 0;
    for (const keys of this.pending.values()) n += keys.size;
    return n;
  }

  get(scope: string, key: string): StateValue | undefined {
    return this.local.get(scope, key);
  }

  getMany(scope: string, keys: readonly string[]): Map<string, StateValue> {
    return this.local.getMany(scope, keys);
  }

  entries(scope: string): [string, StateValue][] {
    return this.local.entries(scope);
  }

  count(scope: string): number {
    return this.local.count(scope);
  }

  set(scope: string, key: string, value: StateValue): void {
    this.setMany(scope, [[key, value]]);
  }

  setMany(scope: string, entries: readonly (readonly [string, StateValue])[]): void {
    this.local.setMany(scope, entries);
    if (entries.length === 0) return;
    this.noteWritten(
      scope,
      entries.map(([key]) => key),
    );
    this.writeThrough(
      scope,
      entries.map(([key, value]) => [key, value]),
    );
  }

  delete(scope: string, key: string): void {
    this.local.delete(scope, key);
    this.noteWritten(scope, [key]);
    this.writeThrough(scope, [[key, TOMBSTONE]]);
  }

  watch(listener: (scope: string, key: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Releases the mirror and stops following the others; the connection is its owner's to close. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.local.close();
    this.offHealth();
    const { subscriber } = this.options.connection;
    subscriber.off('messageBuffer', this.onMessage);
    subscriber.unsubscribe(this.channel).catch(() => {});
    this.listeners.clear();
  }

  private noteWritten(scope: string, keys: readonly string[]): void {
    this.knownScopes.add(scope);
    if (!this.writtenDuringHydration) return;
    for (const key of keys) this.writtenDuringHydration.add(`${scope}\0${key}`);
  }

  private writeThrough(scope: string, entries: readonly (readonly [string, Pending])[]): void {
    if (this.closed) return;
    this.track(
      this.send(scope, entries).catch((error: unknown) => {
        // Redis is down (the connection logs that once): keep the writes for when it is back.
        let keys = this.pending.get(scope);
        if (!keys) {
          keys = new Map();
          this.pending.set(scope, keys);
        }
        for (const [key, value] of entries) keys.set(key, value);
        this.options.log.debug(
          { scope, err: (error as Error).message },
          'state write kept until Redis is back',
        );
      }),
    );
  }

  /** One MULTI: the writes (all or none) and the message telling the others. */
  private async send(scope: string, entries: readonly (readonly [string, Pending])[]): Promise<void> {
    const hash = this.keyPrefix + scope;
    const multi = this.options.connection.client.multi();
    const sets: (string | Buffer)[] = [];
    const deletes: string[] = [];
    for (const [key, value] of entries) {
      if (value === TOMBSTONE) deletes.push(key);
      else sets.push(key, encode(value));
    }
    if (sets.length > 0) multi.hset(hash, ...sets);
    if (deletes.length > 0) multi.hdel(hash, ...deletes);
    const message: ChangeMessage = { from: this.id, scope, keys: entries.map(([key]) => key) };
    multi.publish(this.channel, JSON.stringify(message));
    const results = await multi.exec();
    const failed = results?.find(([error]) => error);
    if (!results || failed) throw failed?.[0] ?? new Error('transaction aborted');
  }

  /** After an outage: writes kept meanwhile go first, then the mirror takes in the others'. */
  private async catchUp(): Promise<void> {
    try {
      for (const [scope, keys] of [...this.pending]) {
        this.pending.delete(scope);
        await this.send(scope, [...keys]).catch((error: unknown) => {
          const again = this.pending.get(scope) ?? new Map<string, Pending>();
          for (const [key, value] of keys) if (!again.has(key)) again.set(key, value);
          this.pending.set(scope, again);
          throw error;
        });
      }
      await this.hydrate();
      this.options.log.info({}, 'shared state caught up after Redis came back');
      // Other gateways catch up at the same moment, some writing back what Redis lost, maybe
      // before this one's subscription is back: read once more when they have settled.
      this.readAgainSoon();
    } catch (error) {
      this.options.log.debug({ err: (error as Error).message }, 'catching up with Redis failed');
      // Down again: the next recovery tries again. Still up (a command timed out on a busy
      // Redis): nothing else would, so try again shortly.
      if (!this.closed && this.options.connection.health.current().state === 'up') {
        const again = setTimeout(() => {
          if (!this.closed) this.track(this.catchUp());
        }, RESEED_SETTLE_MS);
        again.unref();
      }
    }
  }

  private readonly onMessage = (channel: Buffer, raw: Buffer): void => {
    if (this.closed || channel.toString() !== this.channel) return;
    let message: ChangeMessage;
    try {
      message = JSON.parse(raw.toString()) as ChangeMessage;
    } catch {
      return;
    }
    if (message.from === this.id || typeof message.scope !== 'string' || !Array.isArray(message.keys)) return;
    this.track(this.fetch(message.scope, message.keys));
  };

  /** Reads keys another gateway changed and applies them (the latest values, whatever the order of messages). */
  private async fetch(scope: string, keys: readonly string[]): Promise<void> {
    try {
      const values = await this.options.connection.client.hmgetBuffer(this.keyPrefix + scope, ...keys);
      if (this.closed) return;
      keys.forEach((key, i) => {
        // A local write not yet in Redis is newer than what Redis holds.
        if (this.pending.get(scope)?.has(key)) return;
        const raw = values[i];
        const value = raw ? decode(raw) : undefined;
        if (value === undefined) this.local.delete(scope, key);
        else this.local.set(scope, key, value);
        this.emit(scope, key);
      });
    } catch (error) {
      // Lost with Redis: the hydration after it is back brings these keys too.
      this.options.log.debug(
        { scope, err: (error as Error).message },
        'could not fetch a shared state change',
      );
    }
  }

  /** One more hydration after {@link RESEED_SETTLE_MS} (a failure is left to the next recovery). */
  private readAgainSoon(): void {
    if (this.rereading) return;
    this.rereading = true;
    const again = setTimeout(() => {
      this.rereading = false;
      if (!this.closed) this.track(this.hydrate());
    }, RESEED_SETTLE_MS);
    again.unref();
  }

  private rereading = false;

  /** The epoch of the data in Redis: set once by whoever finds none, gone with the data. */
  private async currentEpoch(): Promise<{ epoch: string; created: boolean }> {
    const { client } = this.options.connection;
    const key = `${this.options.connection.prefix}state-epoch`;
    const created = (await client.set(key, randomUUID(), 'NX')) === 'OK';
    return { epoch: (await client.get(key)) ?? '', created };
  }

  private epoch: string | undefined;

  /**
   * Makes the mirror hold the snapshot, except keys written locally meanwhile. With `reseed`,
   * keys only the mirror has are kept and returned (to be written back) instead of deleted.
   */
  private applySnapshot(
    snapshot: Map<string, Map<string, StateValue>>,
    written: Set<string>,
    reseed: boolean,
  ): Map<string, [string, StateValue][]> {
    const reseeded = new Map<string, [string, StateValue][]>();
    const changed: [string, string][] = [];
    const scopes = new Set([...snapshot.keys(), ...this.localScopes()]);
    for (const scope of scopes) {
      const remote = snapshot.get(scope) ?? new Map<string, StateValue>();
      const localEntries = new Map(this.local.entries(scope));
      const pending = this.pending.get(scope);
      for (const [key, value] of remote) {
        if (written.has(`${scope}\0${key}`) || pending?.has(key)) continue;
        const before = localEntries.get(key);
        if (before === undefined || !sameValue(before, value)) {
          this.local.set(scope, key, value);
          changed.push([scope, key]);
        }
      }
      for (const key of localEntries.keys()) {
        if (remote.has(key) || written.has(`${scope}\0${key}`) || pending?.has(key)) continue;
        if (reseed) {
          const list = reseeded.get(scope) ?? [];
          list.push([key, localEntries.get(key)!]);
          reseeded.set(scope, list);
          continue;
        }
        this.local.delete(scope, key);
        changed.push([scope, key]);
      }
    }
    this.knownScopes = scopes;
    for (const [scope, key] of changed) this.emit(scope, key);
    return reseeded;
  }

  /** Scopes the mirror may hold (the memory store does not list them). */
  private knownScopes = new Set<string>();

  private localScopes(): Set<string> {
    return new Set([...this.knownScopes, ...this.pending.keys()]);
  }

  private emit(scope: string, key: string): void {
    this.knownScopes.add(scope);
    for (const listener of [...this.listeners]) {
      try {
        listener(scope, key);
      } catch (error) {
        this.options.log.error({ scope, key, err: (error as Error).message }, 'a state watcher failed');
      }
    }
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch(() => {});
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }
}

/** `b` + raw bytes for a `Uint8Array`, `j` + JSON for anything else. */
function encode(value: StateValue): Buffer {
  if (value instanceof Uint8Array) {
    return Buffer.concat([Buffer.from('b'), Buffer.from(value.buffer, value.byteOffset, value.byteLength)]);
  }
  return Buffer.from(`j${JSON.stringify(value)}`);
}

/** The value of {@link encode}; undefined for anything else (a damaged or foreign field is a miss). */
function decode(raw: Buffer): StateValue | undefined {
  const tag = raw[0];
  if (tag === 0x62) return new Uint8Array(raw.subarray(1));
  if (tag !== 0x6a) return undefined;
  try {
    return JSON.parse(raw.subarray(1).toString()) as StateValue;
  } catch {
    return undefined;
  }
}

function sameValue(a: StateValue, b: StateValue): boolean {
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.from(a).equals(Buffer.from(b));
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A literal for a Redis MATCH pattern. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
