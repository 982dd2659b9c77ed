// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config holds ${secret:…} references on purpose.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresCluster,
  postgresSkipReason,
  startPostgresCluster,
} from '../support/postgres-cluster.js';
import { connectHttp, ROOT, type RunningGateway, startHttpGateway, structured } from './gateway-process.js';

/**
 * Tools written as a few lines of YAML, run by `aperture serve` and called with the SDK client:
 * an HTTP endpoint (loopback fixture), SQL queries on SQLite and on a real PostgreSQL cluster,
 * and a program with JSON on stdin — plus the bad entries, each failing alone with its key named.
 */

const TOKEN = 'decl-e2e-token';
const skipPostgres = postgresSkipReason();

interface Seen {
  url: string;
  authorization: string | undefined;
}

function startFixture(seen: Seen[]): Promise<Server> {
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/items/missing')
      return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such item');
    if (url.pathname === '/items/boom')
      return void res.writeHead(500, { 'content-type': 'text/plain' }).end('it broke');
    if (url.pathname === '/items/slow') return void setTimeout(() => res.writeHead(200).end('{}'), 3000);
    if (url.pathname === '/items/moved') {
      return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' }).end();
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        item: {
          id: decodeURIComponent(url.pathname.split('/').at(-1) ?? ''),
          lang: url.searchParams.get('lang'),
        },
        extra: 1,
      }),
    );
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function sqliteFile(file: string, sql: string): void {
  const require = createRequire(import.meta.url);
  type Db = { exec(sql: string): void; close(): void };
  let db: Db;
  try {
    db = new (require('better-sqlite3') as new (f: string) => Db)(file);
  } catch {
    db = new (require('node:sqlite') as { DatabaseSync: new (f: string) => Db }).DatabaseSync(file);
  }
  db.exec(sql);
  db.close();
}

describe('tools declared in the config (`endpoints:`, `sql:`, `commands:`) in `aperture serve`', () => {
  let dir: string;
  let fixture: Server;
  let pg: PostgresCluster | undefined;
  let gateway: RunningGateway;
  const seen: Seen[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-decl-'));
    fixture = await startFixture(seen);
    const base = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}`;
    sqliteFile(
      path.join(dir, 'shop.db'),
      `create table items (id integer primary key, name text not null);
       insert into items (name) values ('apple'), ('pear'), ('plum'), ('fig');`,
    );
    if (!skipPostgres) {
      pg = await startPostgresCluster();
      await pg.psql(`create table orders (id serial primary key, customer text not null, total numeric(10,2));
        insert into orders (customer, total) select 'c' || g, g * 1.5 from generate_series(1, 30) g;`);
    }
    process.env.DECL_E2E_TOKEN = TOKEN;
    process.env.DECL_E2E_PG = pg?.url ?? 'postgresql://nobody@127.0.0.1:9/none';
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'tools: { builtin: false }',
        'endpoints:',
        '  get_item:',
        '    description: Fetch one catalogue item by its id, in a language.',
        `    url: "${base}/items/{id}?lang={lang}"`,
        '    auth: "${secret:DECL_E2E_TOKEN}"',
        '    timeoutMs: 500',
        '    response: { pick: item }',
        '  broken_template:',
        '    namespace: broken',
        `    url: "${base}/items/{idd}"`,
        '    inputSchema: { type: object, properties: { id: { type: string } } }',
        'sql:',
        '  find_fruit:',
        '    description: Look up fruit in the shop database by name.',
        '    connection: "sqlite:shop.db"',
        '    query: "select id, name from items where name = :name"',
        '  list_fruit:',
        '    connection: "sqlite:shop.db"',
        '    query: "select name from items order by id"',
        '    maxRows: 2',
        '  delete_fruit:',
        '    connection: "sqlite:shop.db"',
        '    query: "delete from items where name = :name"',
        '  customer_orders:',
        '    namespace: pg',
        '    description: Orders of one customer from the PostgreSQL orders table.',
        '    connection: "${env:DECL_E2E_PG}"',
        '    query: "select id, customer, total from orders where customer = :customer"',
        '  all_orders:',
        '    namespace: pg',
        '    connection: "${env:DECL_E2E_PG}"',
        '    query: "select id from orders order by id"',
        '    maxRows: 5',
        '  delete_orders:',
        '    namespace: pg',
        '    connection: "${env:DECL_E2E_PG}"',
        '    query: "delete from orders where customer = :customer"',
        '  unreachable:',
        '    namespace: down',
        '    connection: "postgresql://nobody@127.0.0.1:9/none"',
        '    query: "select 1"',
        '    timeoutMs: 2000',
        '  unbound:',
        '    namespace: broken_sql',
        '    connection: "sqlite:shop.db"',
        '    query: "select * from items where id = :id"',
        '    inputSchema: { type: object, properties: { name: { type: string } } }',
        'commands:',
        '  echo_json:',
        '    description: Echo the arguments back as JSON, read from standard input.',
        `    command: "${path.join(ROOT, 'test/fixtures/commands/echo-stdin.mjs')}"`,
        '    args: ["--tag={tag}"]',
        '    stdin: json',
        '  missing_program:',
        '    namespace: broken_cmd',
        '    command: no-such-program-aperture-e2e',
        'observability: { logLevel: error }',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config]);
  }, 90_000);

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    fixture?.close();
    await pg?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  async function run(toolId: string, args: Record<string, unknown>) {
    await using client = await connectHttp(gateway.url);
    return await client.callTool({ name: 'run_tool', arguments: { tool_id: toolId, args } });
  }

  it('reports the bad entries as failed sources naming their key; the rest is connected', async () => {
    let body:
      | {
          ready: boolean;
          sources: { id: string; state: string; lastError?: { code: string; message: string } }[];
        }
      | undefined;
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${gateway.url}/readyz`);
      body = (await res.json()) as typeof body;
      if (res.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const byId = new Map(body?.sources.map((s) => [s.id, s]));
    expect(byId.get('endpoint:endpoints')?.state).toBe('connected');
    expect(byId.get('sql:sql')?.state).toBe('connected');
    expect(byId.get('command:commands')?.state).toBe('connected');
    expect(byId.get('endpoint:broken')?.lastError).toMatchObject({ code: 'config_invalid' });
    expect(byId.get('endpoint:broken')?.lastError?.message).toContain('endpoints.broken_template.url');
    expect(byId.get('sql:broken_sql')?.lastError?.message).toContain(
      'sql.unbound.query: parameter ":id" is not bound',
    );
    expect(byId.get('command:broken_cmd')?.lastError?.message).toContain('commands.missing_program.command');
    // A database that does not answer is found at the first call, not at start.
    expect(byId.get('sql:down')?.state).toBe('connected');
  });

  it('calls an endpoint with templates and the bearer secret; maps 404, 500, a private redirect and a timeout', async () => {
    const ok = await run('endpoints:get_item', { id: 'a b', lang: 'fr' });
    expect(ok.isError, JSON.stringify(ok.content)).toBeFalsy();
    expect(structured(ok)).toEqual({ id: 'a b', lang: 'fr' });
    expect(seen.at(-1)).toEqual({ url: '/items/a%20b?lang=fr', authorization: `Bearer ${TOKEN}` });

    const missing = structured(await run('endpoints:get_item', { id: 'missing' }));
    expect(missing.error.code).toBe('execution_failed');
    expect(missing.error.message).toMatch(/HTTP 404.*no such item/);
    const boom = structured(await run('endpoints:get_item', { id: 'boom' }));
    expect(boom.error.code).toBe('execution_failed');
    expect(boom.error.message).toMatch(/HTTP 500/);
    const moved = structured(await run('endpoints:get_item', { id: 'moved' }));
    expect(moved.error.code).toBe('forbidden');
    expect(moved.error.message).toContain('169.254.169.254');
    const slow = structured(await run('endpoints:get_item', { id: 'slow' }));
    expect(slow.error.code).toBe('timeout');
  });

  it('queries SQLite read-only: bound parameters, column types, maxRows, a delete refused by the database', async () => {
    const found = structured(await run('sql:find_fruit', { name: 'pear' }));
    expect(found).toEqual({
      rows: [{ id: 2, name: 'pear' }],
      columns: [
        { name: 'id', type: 'integer' },
        { name: 'name', type: 'text' },
      ],
      rowCount: 1,
      truncated: false,
    });
    const crafted = structured(await run('sql:find_fruit', { name: "pear' or 1=1; delete from items; --" }));
    expect(crafted.rowCount).toBe(0);
    expect(structured(await run('sql:list_fruit', {}))).toMatchObject({ rowCount: 2, truncated: true });
    const refused = structured(await run('sql:delete_fruit', { name: 'apple' }));
    expect(refused.error.code).toBe('execution_failed');
    expect(refused.error.message).toMatch(/readonly/i);
    expect(structured(await run('sql:find_fruit', { name: 'apple' })).rowCount).toBe(1);
  });

  it.skipIf(skipPostgres !== undefined)(
    `queries PostgreSQL in a read-only transaction${skipPostgres ? ` (skipped: ${skipPostgres})` : ''}`,
    async () => {
      const orders = structured(await run('pg:customer_orders', { customer: 'c3' }));
      expect(orders).toEqual({
        rows: [{ id: 3, customer: 'c3', total: '4.50' }],
        columns: [
          { name: 'id', type: 'int4' },
          { name: 'customer', type: 'text' },
          { name: 'total', type: 'numeric' },
        ],
        rowCount: 1,
        truncated: false,
      });
      const crafted = structured(
        await run('pg:customer_orders', { customer: "c3'; delete from orders; --" }),
      );
      expect(crafted.rowCount).toBe(0);
      expect(structured(await run('pg:all_orders', {}))).toMatchObject({ rowCount: 5, truncated: true });
      const refused = structured(await run('pg:delete_orders', { customer: 'c1' }));
      expect(refused.error.code).toBe('execution_failed');
      expect(refused.error.message).toContain('read-only transaction');
      expect(await pg?.psql('select count(*)::int as n from orders')).toBe('[{"n":30}]');
    },
  );

  it('fails a call on a database that does not answer with backend_unavailable, naming the key', async () => {
    const down = structured(await run('down:unreachable', {}));
    expect(down.error.code).toBe('backend_unavailable');
    expect(down.error.message).toContain('sql.unreachable');
  });

  it('runs a command with its arguments as JSON on stdin', async () => {
    const echoed = structured(await run('commands:echo_json', { tag: 'x y', n: 2 }));
    expect(echoed).toEqual({ argv: ['--tag=x y'], input: { tag: 'x y', n: 2 }, secret: null });
  });

  it('finds the declared tools with search_tools and lists them in /openapi.json', async () => {
    await using client = await connectHttp(gateway.url);
    const search = async (query: string) =>
      structured(await client.callTool({ name: 'search_tools', arguments: { query, limit: 3 } })).tools.map(
        (t: { id: string }) => t.id,
      );
    expect(await search('fetch catalogue item by id')).toContain('endpoints:get_item');
    expect(await search('look up fruit in the shop database')).toContain('sql:find_fruit');
    expect(await search('echo arguments back as JSON from standard input')).toContain('commands:echo_json');
    const doc = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    for (const id of ['endpoints:get_item', 'sql:find_fruit', 'commands:echo_json']) {
      expect(Object.keys(doc.paths)).toContain(`/api/tools/${id}`);
    }
  });
});
