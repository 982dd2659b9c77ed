import { describe, expect, it } from 'vitest';
import { onRedis, useRedisServer } from '../../../../test/support/redis-fixture.js';
import { silentLogger } from '../../../foundation/ports/logger.js';
import { describeSessionRegistryContract } from '../session-registry.contract.js';
import { inMemorySessionDirectory } from './in-memory-session-directory.js';
import { inMemoryRelayHub } from './in-memory-session-relay.js';
import { redisSessionDirectory } from './redis-session-directory.js';
import { redisSessionRelay } from './redis-session-relay.js';
import { ReplicaSessions } from './replica-sessions.js';

/*
 * ReplicaSessions is the replicated SessionRegistry: the same contract as the local one, on an
 * in-memory directory (with and without a relay) and on Redis, as the gateways share it.
 */

describeSessionRegistryContract(
  'ReplicaSessions on an in-memory directory',
  (host) => new ReplicaSessions({ directory: inMemorySessionDirectory({ ttlMs: 60_000 }) }, host),
);

describeSessionRegistryContract(
  'ReplicaSessions on an in-memory directory and relay',
  (host) =>
    new ReplicaSessions(
      { directory: inMemorySessionDirectory({ ttlMs: 60_000 }), relay: inMemoryRelayHub().relay('r1') },
      host,
    ),
);

const redis = useRedisServer();

onRedis('SessionRegistry contract on Redis', () => {
  describeSessionRegistryContract('ReplicaSessions on a Redis directory and relay', (host) => {
    const prefix = redis.prefix();
    return new ReplicaSessions(
      {
        directory: redisSessionDirectory({ redis: redis.client(), prefix, ttlMs: 60_000 }),
        relay: redisSessionRelay({ redis: redis.client(), prefix, log: silentLogger }),
      },
      host,
    );
  });
});

describe('ReplicaSessions as a registry', () => {
  it('names this replica on the requests it sends, so the answer finds its way back', () => {
    const registry = new ReplicaSessions(
      { directory: inMemorySessionDirectory({ ttlMs: 60_000 }), relay: inMemoryRelayHub().relay('r1') },
      { held: () => undefined, connect: () => Promise.reject(new Error('unused')), log: silentLogger },
    );
    const request = { jsonrpc: '2.0' as const, id: 3, method: 'elicitation/create', params: {} };
    const sent = registry.outgoing(request) as { id: unknown };
    expect(sent.id).not.toBe(3);
    expect(String(sent.id)).toContain('r1');
  });
});
