import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
  unlessRedis,
} from '../support/redis-server.js';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

const AGENT = 'replica-approvals-agent-0123456789';
const ROOT_KEY = 'replica-approvals-root-01234567890';

/**
 * Two gateways (built CLI) sharing one Redis: a call held on one replica is listed by the other's
 * admin API and answered there; the call on the first replica runs (or is denied).
 */
describe.skipIf(!redisServerBin)(`approvals across replicas${unlessRedis()}`, { timeout: 60_000 }, () => {
  let dir: string;
  let redis: RedisServerHandle;
  let a: RunningGateway;
  let b: RunningGateway;

  beforeAll(async () => {
    redis = (await startRedisServer()) as RedisServerHandle;
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-approvals-replicas-'));
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'server: { name: approvals-replicas }',
        'tools:',
        `  modules: [${JSON.stringify(path.join(ROOT, 'test/fixtures/approvals/repo-tools.ts'))}]`,
        `state: { driver: redis, redis: { url: ${JSON.stringify(redis.url)}, prefix: "approvals:" } }`,
        'observability: { logLevel: warn }',
        'auth:',
        '  apiKeys:',
        `    - { name: agent, key: ${AGENT} }`,
        `    - { name: root, key: ${ROOT_KEY}, admin: true }`,
        'policies:',
        '  - { name: ask-deletes, effect: approve, tools: ["repo:delete"] }',
      ].join('\n'),
    );
    [a, b] = await Promise.all([
      startHttpGateway(['--config', config]),
      startHttpGateway(['--config', config]),
    ]);
  });

  afterAll(async () => {
    await Promise.allSettled([a, b].map((g) => g?.[Symbol.asyncDispose]()));
    await redis?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  const held = (gateway: RunningGateway, repo: string) =>
    fetch(`${gateway.url}/api/tools/repo:delete`, {
      method: 'POST',
      headers: { 'x-api-key': AGENT, 'content-type': 'application/json' },
      body: JSON.stringify({ repo }),
    });
  const admin = (gateway: RunningGateway, route: string, method = 'GET') =>
    fetch(`${gateway.url}/api/admin/${route}`, { method, headers: { 'x-api-key': ROOT_KEY } });
  async function listedOn(gateway: RunningGateway): Promise<{ id: string; args: { repo: string } }[]> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const { approvals } = (await (await admin(gateway, 'approvals')).json()) as { approvals: never[] };
      if (approvals.length > 0) return approvals;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('nothing listed');
  }

  it('lists a call held on one replica on the other, which approves it; and denies the next', async () => {
    const call = held(a, 'acme/one');
    const [entry] = await listedOn(b);
    expect(entry?.args).toEqual({ repo: 'acme/one' });
    const answer = await admin(b, `approvals/${entry?.id}/approve`, 'POST');
    expect(await answer.json()).toMatchObject({ id: entry?.id, outcome: 'approved' });
    const response = await call;
    expect(response.status).toBe(200);
    expect(JSON.stringify(await response.json())).toContain('deleted acme/one');

    const next = held(b, 'acme/two');
    const [second] = await listedOn(a);
    await admin(a, `approvals/${second?.id}/deny`, 'POST');
    const refused = await next;
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('approval_denied');
    expect((await admin(a, `approvals/${second?.id}/deny`, 'POST')).status).toBe(404);
  });
});
