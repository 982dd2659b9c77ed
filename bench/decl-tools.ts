#!/usr/bin/env node
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
/**
 * Per-call cost of declared tools, side by side in one run, through the run pipeline in process:
 *   - endpoint   an `endpoints:` tool, GET /items/{id} on a loopback HTTP fixture;
 *   - openapi    the same operation of the same fixture through an `openapi:` source;
 *   - sqlite     an `sql:` tool, one row by primary key from a SQLite file;
 *   - postgres   the same query on a throwaway PostgreSQL cluster (when initdb is installed);
 *   - command    a `commands:` tool running `true` (a process spawn per call), for scale.
 * Calls are interleaved round-robin (one of each per round) so the machine's noise falls on every
 * subject alike; each subject is warmed up first. Figures: p50/p95 per call and the ratio of each
 * p50 to the OpenAPI call's.
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): rounds (2000), json-out. Prints a Markdown
 * section on stdout, progress on stderr.
 */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { Catalog } from '../src/catalog/catalog.js';
import type { CatalogEntry } from '../src/catalog/catalog-entry.js';
import { RunPipeline } from '../src/execution/run-pipeline.js';
import { silentLogger } from '../src/foundation/ports/logger.js';
import { SchemaValidator } from '../src/foundation/schema/schema-validator.js';
import { COMMAND_DRIVER } from '../src/sources/command/command-driver.js';
import { ENDPOINT_DRIVER } from '../src/sources/endpoint/endpoint-driver.js';
import { OPENAPI_DRIVER } from '../src/sources/openapi/openapi-driver.js';
import type { DriverSource, SourceContext } from '../src/sources/source-driver.js';
import type { CONFIGURED_DRIVERS } from '../src/sources/source-drivers.js';
import { SQL_DRIVER } from '../src/sources/sql/sql-driver.js';
import { postgresSkipReason, startPostgresCluster } from '../test/support/postgres-cluster.js';
import { machine, ms, option, runIfMain, summarize, table } from './lib/common.js';

type ConfiguredDriverView = (typeof CONFIGURED_DRIVERS)[number];

interface Subject {
  key: string;
  label: string;
  toolId: string;
  args: Record<string, unknown>;
  samples: number[];
}

async function run() {
  const rounds = option('rounds', 2000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'aperture-bench-decl-'));
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: req.url?.split('/').at(-1), name: 'thing', price: 3 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  writeFileSync(
    path.join(dir, 'items.json'),
    JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'items', version: '1' },
      servers: [{ url: base }],
      paths: {
        '/items/{id}': {
          get: {
            operationId: 'getItem',
            parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
            responses: {
              '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
            },
          },
        },
      },
    }),
  );
  sqliteFixture(path.join(dir, 'shop.db'));
  const pgSkip = postgresSkipReason();
  const pg = pgSkip ? undefined : await startPostgresCluster();
  await pg?.psql(`create table items (id int primary key, name text, price numeric);
    insert into items select g, 'item ' || g, g from generate_series(1, 1000) g;`);

  const context = { baseDir: dir, log: silentLogger, clientInfo: { name: 'bench', version: '1' } };
  const sql: Record<string, unknown> = {
    item_sqlite: { connection: 'sqlite:shop.db', query: 'select id, name, price from items where id = :id' },
  };
  if (pg) {
    sql.item_pg = {
      namespace: 'pg',
      connection: pg.url,
      query: 'select id, name, price from items where id = :id',
    };
  }
  const sources: DriverSource[] = [
    ...sectionSources(
      ENDPOINT_DRIVER,
      {
        endpoints: {
          get_item: { url: `${base}/items/{id}` },
          get_item_open: { url: `${base}/items/{id}`, allowPrivateNetwork: true },
        },
      },
      context,
    ),
    ...sectionSources(
      OPENAPI_DRIVER,
      { openapi: [{ spec: path.join(dir, 'items.json'), namespace: 'api', allowPrivateNetwork: true }] },
      context,
    ),
    ...sectionSources(SQL_DRIVER as unknown as ConfiguredDriverView, { sql }, context),
    ...sectionSources(
      COMMAND_DRIVER as unknown as ConfiguredDriverView,
      { commands: { nothing: { command: 'true' } } },
      context,
    ),
  ];
  const catalog = new Catalog();
  for (const source of sources) {
    await source.start((entries: readonly CatalogEntry[]) => catalog.replaceSource(source.id, entries));
    if (source.state().state !== 'connected')
      throw new Error(`${source.id}: ${JSON.stringify(source.state())}`);
  }
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const subjects: Subject[] = [
    {
      key: 'endpoint',
      label: '`endpoints:` tool, GET /items/{id}',
      toolId: 'endpoints:get_item',
      args: { id: '42' },
      samples: [],
    },
    {
      key: 'endpointOpen',
      label: 'same, `allowPrivateNetwork: true` (no pinned dispatcher)',
      toolId: 'endpoints:get_item_open',
      args: { id: '42' },
      samples: [],
    },
    {
      key: 'openapi',
      label: 'same operation through `openapi:`',
      toolId: 'api:getItem',
      args: { id: '42' },
      samples: [],
    },
    {
      key: 'sqlite',
      label: '`sql:` tool, SQLite, one row by key',
      toolId: 'sql:item_sqlite',
      args: { id: 42 },
      samples: [],
    },
    ...(pg
      ? [
          {
            key: 'postgres',
            label: '`sql:` tool, PostgreSQL, one row by key',
            toolId: 'pg:item_pg',
            args: { id: 42 },
            samples: [],
          },
        ]
      : []),
    {
      key: 'command',
      label: '`commands:` tool, `true` (one spawn)',
      toolId: 'commands:nothing',
      args: {},
      samples: [],
    },
  ];
  const caller = { identity: 'bench' };
  const call = async (subject: Subject) => {
    const result = await pipeline.run({ caller, toolId: subject.toolId, args: subject.args });
    if (result.isError) throw new Error(`${subject.toolId} failed`);
  };
  for (const subject of subjects) for (let i = 0; i < 50; i++) await call(subject);
  for (let round = 0; round < rounds; round++) {
    for (const subject of subjects) {
      // The command spawns a process: sampled one round in ten, or it would dominate the run.
      if (subject.key === 'command' && round % 10 !== 0) continue;
      const started = performance.now();
      await call(subject);
      subject.samples.push(performance.now() - started);
    }
    if (round % 500 === 0) process.stderr.write(`round ${round}/${rounds}\n`);
  }
  for (const source of sources) await source.stop();
  server.close();
  await pg?.[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
  return {
    machine: machine(),
    rounds,
    postgres: pg ? 'measured' : `skipped: ${pgSkip}`,
    subjects: subjects.map(({ key, label, samples }) => ({ key, label, ...summarize(samples) })),
  };
}

/** The sources a driver makes of a config section (as the app does). */
function sectionSources(
  driver: ConfiguredDriverView,
  value: Record<string, unknown>,
  context: SourceContext,
): DriverSource[] {
  const parsed = z.object(driver.section.fields).parse(value)[driver.section.name];
  return driver.section.entries(parsed).map(([key, entry]) => driver.section.create(key, entry, context));
}

function sqliteFixture(file: string): void {
  const require = createRequire(import.meta.url);
  type Db = { exec(sql: string): void; close(): void };
  let db: Db;
  try {
    db = new (require('better-sqlite3') as new (f: string) => Db)(file);
  } catch {
    db = new (require('node:sqlite') as { DatabaseSync: new (f: string) => Db }).DatabaseSync(file);
  }
  db.exec(`create table items (id integer primary key, name text, price real);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000)
    insert into items select i, 'item ' || i, i from n;`);
  db.close();
}

function render(results: Awaited<ReturnType<typeof run>>): string {
  const openapi = results.subjects.find((s) => s.key === 'openapi')?.p50 ?? Number.NaN;
  return [
    '## Declared tools: endpoints, SQL and commands per call',
    '',
    `${results.rounds} interleaved rounds, in process through the run pipeline; ${results.machine.node}, ` +
      `load ${results.machine.loadavg}, ${results.machine.git}, ${results.machine.date.slice(0, 10)}. PostgreSQL ${results.postgres}.`,
    '',
    table(
      ['call', 'n', 'p50 ms', 'p95 ms', 'p50 / OpenAPI p50'],
      results.subjects.map((s) => [s.label, s.n, ms(s.p50), ms(s.p95), (s.p50 / openapi).toFixed(2)]),
    ),
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
