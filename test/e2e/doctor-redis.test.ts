import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisServerHandle,
  redisServerBin,
  startRedisServer,
  unlessRedis,
} from '../support/redis-server.js';
import { CLI, ROOT } from './gateway-process.js';

const exec = promisify(execFile);

async function aperture(args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** `aperture doctor` with `state.driver: redis` says whether the shared state answers. */
describe.skipIf(!redisServerBin)(`aperture doctor with state.driver redis${unlessRedis()}`, () => {
  let dir: string;
  let redis: RedisServerHandle;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-doctor-redis-'));
    const started = await startRedisServer();
    if (!started) throw new Error('redis-server did not start');
    redis = started;
  });

  afterAll(async () => {
    await redis?.[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const configWith = async (url: string) => {
    const file = path.join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(file, `state: { driver: redis, redis: { url: "${url}" } }\n`);
    return file;
  };

  it('prints state: redis URL up, and exits 0', async () => {
    const file = await configWith(redis.url);
    const run = await aperture(['doctor', '--config', file]);
    expect(run.stdout).toContain(`state: redis ${redis.url}`);
    expect(run.stdout).toMatch(/state: redis \S+ up/);
    expect(run.code).toBe(0);
    const json = await aperture(['doctor', '--config', file, '--json']);
    expect(JSON.parse(json.stdout).state).toMatchObject({ driver: 'redis', state: 'up' });
  });

  it('prints DOWN with the reason (the password masked), and exits 1', async () => {
    const file = await configWith(`redis://:s3cret-pass@127.0.0.1:${redis.port + 1}`);
    const run = await aperture(['doctor', '--config', file, '--timeout', '1000']);
    expect(run.stdout).toMatch(/state: redis \S+ DOWN \(.*ECONNREFUSED/);
    expect(`${run.stdout}${run.stderr}`).not.toContain('s3cret-pass');
    expect(run.stderr).toContain('backend_unavailable');
    expect(run.code).toBe(1);
  });
});
