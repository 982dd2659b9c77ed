import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from '../../../test/support/postgres-cluster.js';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { runSourceContract } from '../../catalog/source.contract.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { groupByNamespace } from '../declared/declared-section.js';
import { type SqlEntry, sqlEntrySchema } from './sql-entry.js';
import { SqlPools } from './sql-pools.js';
import { SqlSource } from './sql-source.js';

/** A writable SQLite handle for fixtures: better-sqlite3, else node:sqlite (as the code under test). */
function openWritable(file: string): {
  exec(sql: string): void;
  prepare(sql: string): { get(): unknown };
  close(): void;
} {
  const require = createRequire(import.meta.url);
  try {
    const Database = require('better-sqlite3') as new (f: string) => ReturnType<typeof openWritable>;
    return new Database(file);
  } catch {
    const { DatabaseSync } = require('node:sqlite') as {
      DatabaseSync: new (f: string) => ReturnType<typeof openWritable>;
    };
    return new DatabaseSync(file);
  }
}

let dir: string;
let dbFile: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-sql-'));
  dbFile = path.join(dir, 'shop.db');
  const db = openWritable(dbFile);
  db.exec(`create table items (id integer primary key, name text not null, price real);
    insert into items (name, price) values ('apple', 1.5), ('pear', 2), ('plum', 0.5);`);
  db.close();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const context = (): ExecutionContext => ({
  signal: new AbortController().signal,
  callId: 'c',
  caller: { identity: 't' },
  progress: () => {},
  log: silentLogger,
});

function source(spec: Record<string, Record<string, unknown>>, pools = new SqlPools()): SqlSource {
  const entries: Record<string, SqlEntry> = Object.fromEntries(
    Object.entries(spec).map(([k, v]) => [k, sqlEntrySchema.parse(v)]),
  );
  const [first] = groupByNamespace('sql', entries);
  if (!first) throw new Error('no group');
  return new SqlSource(first[1], { sourceId: 'sql:sql', baseDir: dir, log: silentLogger, pools });
}

async function started(
  spec: Record<string, Record<string, unknown>>,
): Promise<{ entries: readonly CatalogEntry[]; src: SqlSource }> {
  const src = source(spec);
  let entries: readonly CatalogEntry[] = [];
  await src.start((published) => {
    entries = published;
    return [];
  });
  return { entries, src };
}

async function run(
  entries: readonly CatalogEntry[],
  name: string,
  args: Record<string, unknown>,
): Promise<unknown> {
  const entry = entries.find((e) => e.tool.name === name);
  if (!entry) throw new Error(`no tool ${name}`);
  return entry.backend.execute(entry.tool, args, context());
}

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

runSourceContract('sql', async () => ({
  source: source({
    a: { connection: 'sqlite:shop.db', query: 'select 1' },
    b: { connection: 'sqlite:shop.db', query: 'select 2' },
  }),
  ids: ['sql:a', 'sql:b'],
}));

describe('sql tools on SQLite', () => {
  it('binds parameters, returns rows with column types, and cuts at maxRows', async () => {
    const { entries, src } = await started({
      by_name: {
        connection: 'sqlite:shop.db',
        query: 'select id, name, price from items where name = :name',
      },
      all: { connection: 'sqlite:shop.db', query: 'select name from items order by id', maxRows: 2 },
    });
    expect(entries[0]?.tool.inputSchema).toMatchObject({ required: ['name'] });
    expect(await run(entries, 'by_name', { name: 'pear' })).toEqual({
      rows: [{ id: 2, name: 'pear', price: 2 }],
      columns: [
        { name: 'id', type: 'integer' },
        { name: 'name', type: 'text' },
        { name: 'price', type: 'real' },
      ],
      rowCount: 1,
      truncated: false,
    });
    expect(await run(entries, 'all', {})).toMatchObject({ rowCount: 2, truncated: true });
    // A crafted argument is a value, never SQL.
    expect(await run(entries, 'by_name', { name: "x'; delete from items; --" })).toMatchObject({
      rowCount: 0,
    });
    await src.stop();
  });

  it('lets the database refuse a query that writes', async () => {
    const { entries, src } = await started({
      remove: { connection: 'sqlite:shop.db', query: 'delete from items where id = :id' },
    });
    const refused = await failure(run(entries, 'remove', { id: 1 }));
    expect(refused.code).toBe('execution_failed');
    expect(refused.message).toMatch(/readonly/i);
    const db = openWritable(dbFile);
    expect({ ...(db.prepare('select count(*) as n from items').get() as object) }).toEqual({ n: 3 });
    db.close();
    await src.stop();
  });

  it('fails the call, not the source, on a database that is not there', async () => {
    const { entries, src } = await started({
      q: { connection: 'sqlite:nowhere/missing.db', query: 'select 1' },
    });
    expect(src.state().state).toBe('connected');
    const down = await failure(run(entries, 'q', {}));
    expect([down.code, down.details?.key]).toEqual(['backend_unavailable', 'sql.q.connection']);
    await src.stop();
  });

  it('fails the source with config_invalid naming the key: an unbound parameter, a bad connection string', async () => {
    const unbound = await started({
      q: {
        connection: 'sqlite:shop.db',
        query: 'select * from items where id = :id',
        inputSchema: { type: 'object', properties: { name: {} } },
      },
    });
    expect(unbound.src.state()).toMatchObject({ state: 'failed', lastError: { code: 'config_invalid' } });
    expect(unbound.src.state().lastError?.message).toContain('sql.q.query: parameter ":id" is not bound');
    const bad = await started({ q: { connection: 'mysql://x', query: 'select 1' } });
    expect(bad.src.state().lastError?.message).toContain('sql.q.connection');
  });
});

const skip = postgresSkipReason();

describe.skipIf(skip !== undefined)(`sql tools on PostgreSQL${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let pg: PostgresCluster;

  beforeAll(async () => {
    pg = await startPostgresCluster();
    await pg.psql(`create table items (id serial primary key, name text not null, born timestamptz default now());
      insert into items (name) select 'item ' || g from generate_series(1, 50) g;`);
  }, 60_000);

  afterAll(async () => {
    await pg?.[Symbol.asyncDispose]();
  });

  it('binds parameters, reports column types, caps rows, and refuses writes in the read-only transaction', async () => {
    const { entries, src } = await started({
      by_id: { connection: pg.url, query: 'select id, name from items where id = :id' },
      many: { connection: pg.url, query: 'select id, born from items order by id', maxRows: 5 },
      remove: { connection: pg.url, query: 'delete from items where id = :id' },
      slow: { connection: pg.url, query: 'select pg_sleep(2)', timeoutMs: 100 },
      escape: { connection: pg.url, query: 'rollback; delete from items' },
      unset: { connection: pg.url, query: 'set default_transaction_read_only = off' },
    });
    expect(await run(entries, 'by_id', { id: 3 })).toEqual({
      rows: [{ id: 3, name: 'item 3' }],
      columns: [
        { name: 'id', type: 'int4' },
        { name: 'name', type: 'text' },
      ],
      rowCount: 1,
      truncated: false,
    });
    expect(await run(entries, 'many', {})).toMatchObject({
      rowCount: 5,
      truncated: true,
      columns: [{ type: 'int4' }, { type: 'timestamptz' }],
    });
    const refused = await failure(run(entries, 'remove', { id: 1 }));
    expect([refused.code, refused.details?.sqlstate]).toEqual(['execution_failed', '25006']);
    // A query text that tries to leave the read-only transaction is one statement or nothing.
    expect((await failure(run(entries, 'escape', {}))).code).toBe('execution_failed');
    await run(entries, 'unset', {}).catch(() => {});
    expect((await failure(run(entries, 'remove', { id: 2 }))).details?.sqlstate).toBe('25006');
    expect(await pg.psql('select count(*) from items')).toContain('50');
    expect((await failure(run(entries, 'slow', {}))).code).toBe('timeout');
    // The pool is still usable after a timeout.
    expect(await run(entries, 'by_id', { id: 4 })).toMatchObject({ rowCount: 1 });
    await src.stop();
  });

  it('fails calls with backend_unavailable when the server does not answer', async () => {
    const { entries, src } = await started({
      q: { connection: 'postgresql://nobody@127.0.0.1:9/x', query: 'select 1', timeoutMs: 2000 },
    });
    expect((await failure(run(entries, 'q', {}))).code).toBe('backend_unavailable');
    await src.stop();
  });
});
