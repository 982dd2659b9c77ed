import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
  unlessRedis,
} from '../../test/support/redis-server.js';
import { Catalog } from '../catalog/catalog.js';
import { parseConfigValue } from '../config/load-config.js';
import { silentLogger } from '../foundation/ports/logger.js';
import type { DownstreamNotificationListener, DownstreamServer } from '../sources/mcp/downstream-server.js';
import { checkSharedState, SharedState } from './shared-state.js';

let redis: RedisServerHandle | null = null;
const opened: SharedState[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterAll(async () => {
  await Promise.allSettled(opened.map((shared) => shared.close()));
  await redis?.[Symbol.asyncDispose]();
});

function configFor(url: string, prefix = 'fanout:') {
  return parseConfigValue({ state: { driver: 'redis', redis: { url, prefix } } }).config;
}

/** The part of a downstream server the fan-out uses, recording what it is asked to do. */
function fakeServer(name: string) {
  const listeners = new Set<DownstreamNotificationListener>();
  const calls = { relisted: 0, delivered: [] as string[] };
  const server = {
    name,
    onNotification(listener: DownstreamNotificationListener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async relist() {
      calls.relisted++;
    },
    deliver(method: string, params?: Record<string, unknown>) {
      for (const listener of listeners) listener(method, params);
      calls.delivered.push(`${method} ${String(params?.uri ?? '')}`);
    },
    /** The server announces something over this gateway's own connection. */
    announce(method: string, params?: Record<string, unknown>) {
      for (const listener of listeners) listener(method, params);
    },
  };
  return { server, calls };
}

async function until(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('SharedState', () => {
  it.skipIf(!redisServerBin)(
    `fans a server's notifications out: the other gateway re-lists its own connection and tells its sessions${unlessRedis()}`,
    async () => {
      const [one, two] = await Promise.all([
        SharedState.open(configFor(redis!.url), silentLogger, 5000),
        SharedState.open(configFor(redis!.url), silentLogger, 5000),
      ]);
      opened.push(one, two);
      const a = fakeServer('docs');
      const b = fakeServer('docs');
      const catalogA = new Catalog({ debounceMs: 1 });
      const catalogB = new Catalog({ debounceMs: 1 });
      one.fanOut(() => [a.server as unknown as DownstreamServer], catalogA);
      two.fanOut(() => [b.server as unknown as DownstreamServer], catalogB);
      let changesOnB = 0;
      catalogB.onChange(() => changesOnB++);

      a.server.announce('notifications/tools/list_changed');
      await until(() => b.calls.relisted === 1 && changesOnB === 1);
      // B's list did not change, yet its sessions are told: the server said it did.

      a.server.announce('notifications/resources/updated', { uri: 'file:///readme' });
      await until(() => b.calls.delivered.length === 1);
      expect(b.calls.delivered).toEqual(['notifications/resources/updated file:///readme']);
      // What B was handed is not published again: A hears nothing back.
      await new Promise((r) => setTimeout(r, 200));
      expect(a.calls.delivered).toEqual([]);
      expect(a.calls.relisted).toBe(0);
      // A change both gateways heard from the server themselves is not acted on twice.
      b.server.announce('notifications/tools/list_changed');
      a.server.announce('notifications/tools/list_changed');
      await new Promise((r) => setTimeout(r, 300));
      expect(a.calls.relisted).toBe(0);
      expect(b.calls.relisted).toBe(1);
      // Notifications nobody acts on are not fanned out.
      a.server.announce('notifications/message', { level: 'info' });
      await new Promise((r) => setTimeout(r, 200));
      expect(b.calls.delivered).toHaveLength(1);
    },
  );

  it.skipIf(!redisServerBin)(
    `says up in readiness and doctor's check when Redis answers${unlessRedis()}`,
    async () => {
      const config = configFor(redis!.url, 'ready:');
      const shared = await SharedState.open(config, silentLogger, 5000);
      opened.push(shared);
      expect(shared.readiness()).toMatchObject({ driver: 'redis', state: 'up' });
      expect(await checkSharedState(config, 5000)).toMatchObject({ driver: 'redis', state: 'up' });
    },
  );

  it('starts without Redis, not ready, with the reason; doctor says down', async () => {
    const config = parseConfigValue({
      state: { driver: 'redis', redis: { url: 'redis://:hunter2@127.0.0.1:1', prefix: 'x:' } },
    }).config;
    const shared = await SharedState.open(config, silentLogger, 300);
    opened.push(shared);
    const readiness = shared.readiness();
    expect(readiness.state).not.toBe('up');
    expect(readiness.url).not.toContain('hunter2');
    // Reads and writes go on in memory.
    shared.store.set('s', 'k', 1);
    expect(shared.store.get('s', 'k')).toBe(1);
    const check = await checkSharedState(config, 300);
    expect(check).toMatchObject({ state: 'down' });
    expect(check.reason).toMatch(/ECONNREFUSED|not reachable/);
  });
});
