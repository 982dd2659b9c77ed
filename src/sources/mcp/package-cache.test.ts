import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../foundation/ports/logger.js';
import { type NpxLaunch, npxLaunchOf, PackageCache, PackageCacheUnusable } from './package-cache.js';

const FAKE_NPM = fileURLToPath(new URL('../../../test/fixtures/fake-npm.mjs', import.meta.url));
const EVERYTHING = '@modelcontextprotocol/server-everything';

describe('npxLaunchOf', () => {
  it.each([
    [['-y', EVERYTHING], { spec: EVERYTHING, name: EVERYTHING, version: 'latest', args: [] }],
    [['--yes', `${EVERYTHING}@2026.8.31`, 'stdio'], { version: '2026.8.31', args: ['stdio'] }],
    [
      ['-y', '-p', 'pkg@1', 'pkg-bin', '--flag'],
      { spec: 'pkg@1', name: 'pkg', bin: 'pkg-bin', args: ['--flag'] },
    ],
  ])('npx %j', (args, expected) => {
    expect(npxLaunchOf('npx', args)).toMatchObject(expected);
  });

  it('reads npm exec, dropping the -- that ends its options', () => {
    expect(npxLaunchOf('npm', ['exec', '-y', 'pkg@2', '--', '--port', '1'])).toMatchObject({
      spec: 'pkg@2',
      args: ['--port', '1'],
    });
  });

  it.each([
    ['npx', ['-c', 'pkg serve']],
    ['npx', ['--registry', 'https://x', 'pkg']],
    ['npx', ['./local-server.js']],
    ['npx', []],
    ['node', ['server.js']],
    ['npm', ['run', 'serve']],
  ])('leaves %s %j as written', (command, args) => {
    expect(npxLaunchOf(command, args)).toBeUndefined();
  });
});

describe('PackageCache', () => {
  let dir: string;
  let count: string;
  const launch = npxLaunchOf('npx', ['-y', EVERYTHING, 'stdio']) as NpxLaunch;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'aperture-packages-'));
    count = path.join(dir, 'installs.txt');
    process.env.FAKE_NPM_COUNT = count;
  });
  afterEach(() => {
    delete process.env.FAKE_NPM_COUNT;
    delete process.env.FAKE_NPM_DELAY_MS;
    rmSync(dir, { recursive: true, force: true });
  });
  const installs = () => (existsSync(count) ? readFileSync(count, 'utf8').trim().split('\n').length : 0);
  const cache = () =>
    new PackageCache({ dir: path.join(dir, 'packages'), log: silentLogger, npm: FAKE_NPM, pollMs: 50 });

  it('installs once, then starts the bin with node every time', async () => {
    const first = await cache().resolve(launch);
    expect(first.command).toBe(process.execPath);
    expect(first.args[0]).toMatch(/server-everything[/\\]dist[/\\]index\.js$/);
    expect(first.args.slice(1)).toEqual(['stdio']);
    const second = await cache().resolve(launch);
    expect(second).toEqual(first);
    expect(installs()).toBe(1);
  });

  it('reinstalls an entry that is incomplete or damaged', async () => {
    const packages = cache();
    await packages.resolve(launch);
    const entry = path.join(dir, 'packages', `@modelcontextprotocol+server-everything@latest`);
    // Cut short: no completion marker.
    unlinkSync(path.join(entry, '.aperture-installed'));
    await packages.resolve(launch);
    expect(installs()).toBe(2);
    // The package itself gone (a half-deleted folder).
    unlinkSync(path.join(entry, 'node_modules', EVERYTHING));
    await packages.resolve(launch);
    expect(installs()).toBe(3);
  });

  it('two gateways installing at once: one installs, the other waits for it', async () => {
    process.env.FAKE_NPM_DELAY_MS = '800';
    const [a, b] = await Promise.all([cache().resolve(launch), cache().resolve(launch)]);
    expect(a).toEqual(b);
    expect(installs()).toBe(1);
  });

  it('says installing while it installs', async () => {
    process.env.FAKE_NPM_DELAY_MS = '500';
    const packages = cache();
    const done = packages.resolve(launch);
    expect(packages.isInstalling(launch.spec)).toBe(true);
    await done;
    expect(packages.isInstalling(launch.spec)).toBe(false);
  });

  it('a gateway killed during the first install does not break the next start', async () => {
    process.env.FAKE_NPM_DELAY_MS = '1500';
    const packagesDir = path.join(dir, 'packages');
    // A gateway process that starts the install and is killed (SIGKILL) in the middle of it.
    const gateway = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import { PackageCache } from ${JSON.stringify(fileURLToPath(new URL('./package-cache.ts', import.meta.url)))};
         import { silentLogger } from ${JSON.stringify(fileURLToPath(new URL('../../foundation/ports/logger.ts', import.meta.url)))};
         new PackageCache({ dir: ${JSON.stringify(packagesDir)}, log: silentLogger, npm: ${JSON.stringify(FAKE_NPM)} })
           .resolve(${JSON.stringify(launch)});`,
      ],
      { stdio: 'ignore', detached: true },
    );
    const lock = path.join(packagesDir, '@modelcontextprotocol+server-everything@latest.lock');
    for (let i = 0; i < 100 && !existsSync(lock); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(lock)).toBe(true);
    process.kill(-(gateway.pid as number), 'SIGKILL');
    // The next start waits for the install the killed gateway began (it was not cut short).
    const next = await cache().resolve(launch);
    expect(next.command).toBe(process.execPath);
    expect(installs()).toBe(1);
  });

  it('honours a just-written lock of a process that is gone for a moment (its installer may be starting)', async () => {
    const packagesDir = path.join(dir, 'packages');
    mkdirSync(packagesDir, { recursive: true });
    const lock = path.join(packagesDir, '@modelcontextprotocol+server-everything@latest.lock');
    // A gateway killed right after it took the lock: the pid it wrote is gone.
    writeFileSync(lock, String(spawnSync(process.execPath, ['-e', '']).pid));
    const resolving = cache().resolve(launch);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(installs()).toBe(0);
    expect((await resolving).command).toBe(process.execPath);
    expect(installs()).toBe(1);
  });

  it('takes over at once a lock of a process that is gone since long', async () => {
    const packagesDir = path.join(dir, 'packages');
    mkdirSync(packagesDir, { recursive: true });
    const lock = path.join(packagesDir, '@modelcontextprotocol+server-everything@latest.lock');
    writeFileSync(lock, String(spawnSync(process.execPath, ['-e', '']).pid));
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect((await cache().resolve(launch)).command).toBe(process.execPath);
    expect(installs()).toBe(1);
  });
});

describe('PackageCache with the real npm', () => {
  it('installs offline from the npm cache when it holds the package (else skipped: nothing is downloaded)', async (context) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'aperture-packages-npm-'));
    try {
      const { version } = JSON.parse(
        readFileSync(fileURLToPath(import.meta.resolve(`${EVERYTHING}/package.json`)), 'utf8'),
      ) as { version: string };
      const launch = npxLaunchOf('npx', ['-y', `${EVERYTHING}@${version}`]) as NpxLaunch;
      const packages = new PackageCache({
        dir,
        log: silentLogger,
        npm: 'npm',
        installArgs: ['--offline'],
        pollMs: 50,
      });
      let resolved: Awaited<ReturnType<PackageCache['resolve']>>;
      try {
        resolved = await packages.resolve(launch);
      } catch (error) {
        if (/ENOTCACHED|only-if-cached/.test((error as Error).message)) {
          context.skip('offline install impossible here: the npm cache does not hold the package metadata');
        }
        throw error;
      }
      expect(resolved.command).toBe(process.execPath);
      expect(existsSync(resolved.args[0] as string)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('PackageCache in a place it cannot create', () => {
  it('says so with PackageCacheUnusable (the command then runs as written)', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'aperture-packages-ro-')), 'a-file');
    writeFileSync(file, 'not a folder');
    const packages = new PackageCache({ dir: path.join(file, 'packages'), log: silentLogger, npm: FAKE_NPM });
    await expect(
      packages.resolve(npxLaunchOf('npx', ['-y', EVERYTHING]) as NpxLaunch),
    ).rejects.toBeInstanceOf(PackageCacheUnusable);
  });
});
