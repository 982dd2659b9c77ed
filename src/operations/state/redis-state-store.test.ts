import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../test/support/redis-fixture.js';
import { redisServerBin, unlessRedis } from '../../../test/support/redis-server.js';
import { FailureStats } from '../../discovery/failure-stats.js';
import { LearnedQueries } from '../../discovery/learned-queries.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { runStateStoreContract } from '../../foundation/ports/state-store.contract.js';
import type { RedisConnection } from './redis-connection.js';
import { RedisStateStore } from './redis-state-store.js';

const fixture = useRedisServer();
let prefixes = 0;
const connectionOf = new WeakMap<RedisStateStore, RedisConnection>();

/** A connection of its own (as a second gateway would have) under `prefix`. */
const connect = (prefix: string) => fixture.connect(prefix);

async function store(prefix: string): Promise<RedisStateStore> {
  const connection = await connect(prefix);
  const s = new RedisStateStore({ connection, log: silentLogger });
  connectionOf.set(s, connection);
  await s.hydrate();
  return s;
}

async function until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

onRedis('StateStore contract: RedisStateStore (real Redis)', () => {
  runStateStoreContract(
    'RedisStateStore (real Redis)',
    () => store(`contract${++prefixes}:`),
    async (s) => {
      const replicated = s as RedisStateStore;
      await replicated.settled();
      replicated.close();
      return store(`contract${prefixes}:`);
    },
  );
});

describe('RedisStateStore across gateways', () => {
  it.skipIf(!redisServerBin)(
    `a write on one is seen by another, and its watchers are told${unlessRedis()}`,
    async () => {
      const a = await store('pair1:');
      const b = await store('pair1:');
      const seen: string[] = [];
      b.watch((scope, key) => seen.push(`${scope}/${key}`));
      a.set('learned', 'tool:x', { q: 'find files' });
      a.set('bytes', 'v', new Uint8Array([1, 2, 3]));
      await until(() => seen.length === 2);
      expect(b.get('learned', 'tool:x')).toEqual({ q: 'find files' });
      expect([...(b.get('bytes', 'v') as Uint8Array)]).toEqual([1, 2, 3]);
      a.delete('learned', 'tool:x');
      await until(() => seen.length === 3);
      expect(b.get('learned', 'tool:x')).toBeUndefined();
      // A store's own writes are not echoed to its own watchers.
      const own: string[] = [];
      a.watch((scope, key) => own.push(`${scope}/${key}`));
      a.set('learned', 'tool:y', 1);
      await until(() => b.get('learned', 'tool:y') === 1);
      expect(own).toEqual([]);
      // A newcomer starts with everything.
      const c = await store('pair1:');
      expect(c.get('learned', 'tool:y')).toBe(1);
      expect(c.entries('bytes')).toHaveLength(1);
    },
  );

  it.skipIf(!redisServerBin)(
    `keeps writes made while Redis is down and writes them when it is back; catches up on the others'${unlessRedis()}`,
    async () => {
      const a = await store('outage:');
      const b = await store('outage:');
      a.set('s', 'before', 1);
      await until(() => b.get('s', 'before') === 1);
      await fixture.server!.stop();
      await until(() => connectionOf.get(a)!.health.current().state === 'down');
      a.set('s', 'during', 2);
      expect(a.get('s', 'during')).toBe(2);
      await a.settled();
      expect(a.unsynced).toBe(1);
      // The restarted Redis is empty (no persistence): what both know is written back by whoever has it.
      await fixture.server!.start();
      await until(() => a.unsynced === 0, 10_000);
      await until(() => b.get('s', 'during') === 2, 10_000);
      expect(a.get('s', 'before')).toBe(1);
    },
  );

  it.skipIf(!redisServerBin)(
    `learned queries and failure statistics of one gateway reach another's models${unlessRedis()}`,
    async () => {
      const a = await store('models:');
      const b = await store('models:');
      const learnedA = new LearnedQueries({ store: a });
      const learnedB = new LearnedQueries({ store: b });
      const failuresA = new FailureStats({ store: a });
      const failuresB = new FailureStats({ store: b });
      const relearned: string[] = [];
      learnedB.subscribe((toolId, query) => relearned.push(`${toolId}:${query}`));
      learnedB.learn('fs:read', 'open a text file');
      learnedA.learn('fs:grep', 'search inside files');
      learnedA.flush();
      await until(() => learnedB.toolsOf('search inside files').length === 1);
      expect(learnedB.toolsOf('search inside files')[0]?.toolId).toBe('fs:grep');
      expect(relearned).toContain('fs:grep:search inside files');
      // B's own learning, not yet written, survives taking in A's.
      expect(learnedB.toolsOf('open a text file')[0]?.toolId).toBe('fs:read');
      failuresA.record('fs:grep', false);
      await until(() => failuresB.failures('fs:grep') > 0);
      expect(failuresB.factor('fs:grep')).toBeLessThan(1);
      learnedA.close();
      learnedB.close();
      failuresA.close();
      failuresB.close();
    },
  );

  it.skipIf(!redisServerBin)(
    `a store that starts while Redis is down loads the shared state once Redis is up${unlessRedis()}`,
    async () => {
      const a = await store('late:');
      a.set('s', 'known', 'before');
      await a.settled();
      await fixture.server!.stop();
      const connection = await fixture.connect('late:', { commandTimeoutMs: 500, waitUp: false });
      const late = new RedisStateStore({ connection, log: silentLogger });
      await expect(late.hydrate()).rejects.toThrow();
      expect(late.get('s', 'known')).toBeUndefined();
      // The restarted Redis is empty: A writes back what it knows, and the late store loads it.
      await fixture.server!.start();
      await until(() => late.get('s', 'known') === 'before', 10_000);
    },
  );
});
