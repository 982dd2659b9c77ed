import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
  unlessRedis,
} from '../support/redis-server.js';
import { CLI, ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

const run = promisify(execFile);
const KEY = 'replica-audit-key-0123456789abc';

/**
 * Two gateways (built CLI) sharing one Redis (`state.driver: redis`) with `audit.calls: true`:
 * calls on both at once land in one trail whose chain is intact — the replicas' appends are
 * chained atomically — as `aperture audit verify` with the config says; and a line changed in
 * Redis is named.
 */
describe.skipIf(!redisServerBin)(
  `audit trail shared by replicas${unlessRedis()}`,
  { timeout: 60_000 },
  () => {
    let dir: string;
    let config: string;
    let redis: RedisServerHandle;
    const gateways: RunningGateway[] = [];

    const cli = (...args: string[]) =>
      run(process.execPath, [CLI, ...args, '--config', config], { cwd: ROOT }).then(
        (done) => ({ code: 0, stdout: done.stdout }),
        (failed: { code: number; stdout: string }) => ({ code: failed.code, stdout: failed.stdout }),
      );

    beforeAll(async () => {
      redis = (await startRedisServer()) as RedisServerHandle;
      dir = await mkdtemp(path.join(tmpdir(), 'aperture-audit-replicas-'));
      config = path.join(dir, 'aperture.yaml');
      await writeFile(
        config,
        [
          'server: { name: audit-replicas }',
          'tools:',
          `  modules: [${JSON.stringify(path.join(ROOT, 'test/fixtures/approvals/repo-tools.ts'))}]`,
          `state: { driver: redis, redis: { url: ${JSON.stringify(redis.url)}, prefix: "replicas:" } }`,
          'observability: { logLevel: warn }',
          `auth: { apiKeys: [{ name: agent, key: ${KEY} }] }`,
          'audit: { calls: true }',
        ].join('\n'),
      );
      gateways.push(
        await startHttpGateway(['--config', config]),
        await startHttpGateway(['--config', config]),
      );
    });

    afterAll(async () => {
      await Promise.allSettled(gateways.map((g) => g[Symbol.asyncDispose]()));
      await redis?.[Symbol.asyncDispose]();
      await rm(dir, { recursive: true, force: true });
    });

    it('chains the calls of both replicas into one trail, which verify checks and a change breaks', async () => {
      const call = (gateway: RunningGateway, i: number) =>
        fetch(`${gateway.url}/api/tools/repo:read`, {
          method: 'POST',
          headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
          body: JSON.stringify({ repo: `acme/r${i}` }),
        }).then((response) => expect(response.status).toBe(200));
      await Promise.all(Array.from({ length: 40 }, (_, i) => call(gateways[i % 2] as RunningGateway, i)));

      const verified = await cli('audit', 'verify');
      expect(verified.code).toBe(0);
      expect(verified.stdout).toMatch(/^redis: 40 lines, chain intact/);
      const tail = await cli('audit', 'tail', '-n', '3', '--json');
      const lines = tail.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(lines.map((line) => line.seq)).toEqual([38, 39, 40]);
      expect(lines[0]).toMatchObject({
        kind: 'call',
        actor: 'apikey:agent',
        tool: 'repo:read',
        decision: 'ok',
      });

      const client = new Redis(redis.url);
      try {
        const fifth = (await client.lindex('replicas:audit', 4)) ?? '';
        await client.lset('replicas:audit', 4, fifth.replace('apikey:agent', 'apikey:agenT'));
      } finally {
        client.disconnect();
      }
      const broken = await cli('audit', 'verify');
      expect(broken.code).toBe(1);
      expect(broken.stdout).toMatch(/broken at line 5 of 40/);
    });
  },
);
