import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** A throwaway PostgreSQL cluster: its connection string, stopped and deleted on dispose. */
export interface PostgresCluster extends AsyncDisposable {
  url: string;
  /** Runs SQL as the cluster's superuser (setting up fixtures); the last statement's rows as JSON. */
  psql(sql: string): Promise<string>;
}

/** The folder of `initdb` and friends: PATH, else Debian's versioned folder; undefined when absent. */
export function postgresBinDir(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, 'initdb'))) return dir;
  }
  const debian = '/usr/lib/postgresql';
  if (!existsSync(debian)) return undefined;
  const versions = readdirSync(debian).sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const dir = path.join(debian, version, 'bin');
    if (existsSync(path.join(dir, 'initdb'))) return dir;
  }
  return undefined;
}

/** Why PostgreSQL tests cannot run here, or undefined when they can. */
export function postgresSkipReason(): string | undefined {
  if (!postgresBinDir()) return 'PostgreSQL (initdb) is not installed';
  // initdb refuses to run as root; the cluster then runs as `nobody` through setpriv (util-linux).
  if (process.getuid?.() === 0 && !onPath('setpriv'))
    return 'running as root without setpriv to drop to nobody';
  return undefined;
}

function onPath(program: string): boolean {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir !== '' && existsSync(path.join(dir, program)));
}

/**
 * Starts an unprivileged cluster in a temporary folder, listening on a free loopback port (and a
 * socket in that folder). PostgreSQL refuses to run as root: then every command runs as `nobody`
 * through `setpriv`, and the folder is given to it.
 */
export async function startPostgresCluster(): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed');
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chown(dir, 65534, 65534);
  const exec = (program: string, args: string[]) =>
    asRoot
      ? run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', path.join(bin, program), ...args])
      : run(path.join(bin, program), args);
  const data = path.join(dir, 'data');
  await exec('initdb', ['-D', data, '-U', 'aperture', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  await exec('pg_ctl', [
    '-D',
    data,
    '-l',
    path.join(dir, 'log'),
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -F`,
    '-w',
    'start',
  ]);
  const url = `postgresql://aperture@127.0.0.1:${port}/postgres`;
  return {
    url,
    async psql(sql: string) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const results = (await client.query(sql)) as pg.QueryResult | pg.QueryResult[];
        const last = Array.isArray(results) ? results.at(-1) : results;
        return JSON.stringify(last?.rows ?? []);
      } finally {
        await client.end();
      }
    },
    async [Symbol.asyncDispose]() {
      await exec('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
