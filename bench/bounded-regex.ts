#!/usr/bin/env node
import { mkdtemp, rm } from 'node:fs/promises';
/**
 * What running JSON Schema patterns on the linear-time engine (re2js, ajv's `code.regExp`) costs per
 * call, against ajv's default backtracking `RegExp`: both validators validate the same values, in
 * alternating blocks, in one run.
 *
 *   npx tsx bench/bounded-regex.ts [--calls 20000] [--rounds 5] [--killer 24]
 *
 * Schemas: every tool input and output schema of the real npm servers the end-to-end tests use
 * (server-everything, server-memory, server-filesystem), listed by connecting the official client;
 * plus a synthetic schema with six everyday patterns (ids, slugs, dates, emails, semver, hex), as a
 * pattern-heavy upper bound. Values: one argument object per schema built from its properties (a
 * string matching the pattern where there is one), so each call checks every property.
 * Also: one `^(a+)+$` validation against a killer string of `--killer` characters, the case the
 * engine exists for (the default engine doubles its time with each added character).
 */
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ajvRegExpEngine } from '../src/foundation/schema/bounded-regexp.js';
import { machine, option, runIfMain, table } from './lib/common.js';

const require = createRequire(import.meta.url);
type Validate = ((value: unknown) => boolean) & { errors?: unknown };
type Schema = Record<string, unknown>;

/**
 * ajv as the gateway builds it (src/foundation/schema/schema-validator.ts: 2020-12, draft-07 when the
 * schema says so, `$id` dropped), with the bounded engine or with ajv's default `RegExp`.
 */
function makeAjv(bounded: boolean): { compile(schema: Schema): Validate } {
  const engine = (module: string) => {
    const Ajv = require(module).default;
    const ajv = new Ajv({
      allErrors: true,
      strict: false,
      allowUnionTypes: true,
      validateFormats: true,
      ...(bounded ? { code: { regExp: ajvRegExpEngine } } : {}),
    });
    require('ajv-formats').default(ajv);
    return ajv as { compile(schema: Schema): Validate };
  };
  const modern = engine('ajv/dist/2020');
  const draft7 = engine('ajv');
  return {
    compile: ({ $id: _id, ...schema }) =>
      (typeof schema.$schema === 'string' && /draft-0[4-7]/.test(schema.$schema) ? draft7 : modern).compile(
        schema,
      ),
  };
}

function referenceServerBin(pkg: string): string {
  const dir = path.dirname(require.resolve(`@modelcontextprotocol/${pkg}/package.json`));
  const manifest = require(`@modelcontextprotocol/${pkg}/package.json`) as {
    bin: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
  return path.join(dir, bin as string);
}

/** The tool schemas of one real server, listed over stdio with the official client. */
async function listSchemas(pkg: string, args: string[]): Promise<{ name: string; schema: Schema }[]> {
  const client = new Client({ name: 'bench-bounded-regex', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [referenceServerBin(pkg), ...args],
      stderr: 'ignore',
    }),
  );
  try {
    const { tools } = await client.listTools();
    return tools.flatMap((tool) => [
      { name: `${pkg}:${tool.name} input`, schema: tool.inputSchema as Schema },
      ...(tool.outputSchema
        ? [{ name: `${pkg}:${tool.name} output`, schema: tool.outputSchema as Schema }]
        : []),
    ]);
  } finally {
    await client.close();
  }
}

const PATTERNED: Schema = {
  type: 'object',
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' },
    day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
    email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$' },
    version: { type: 'string', pattern: '^\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?$' },
    sha: { type: 'string', pattern: '^[0-9a-f]{40}$' },
  },
  required: ['id', 'slug', 'day', 'email', 'version', 'sha'],
};
const PATTERNED_VALUE = {
  id: 'github_repos-list',
  slug: 'hardening-round-two',
  day: '2026-11-28',
  email: 'ops@example.com',
  version: '2.10.0-rc.1',
  sha: 'a'.repeat(40),
};

/** A value exercising every property of `schema`: matching strings, a number, a list, an object. */
function sampleValue(schema: Schema): unknown {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const value: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    const type = Array.isArray(property.type) ? property.type[0] : property.type;
    if (Array.isArray(property.enum)) value[key] = property.enum[0];
    else if (type === 'number' || type === 'integer') value[key] = 1;
    else if (type === 'boolean') value[key] = true;
    else if (type === 'array') value[key] = [];
    else if (type === 'object') value[key] = {};
    else value[key] = 'example';
  }
  return value;
}

interface Row {
  schema: string;
  patterns: number;
  defaultNs: number;
  boundedNs: number;
}

/** ns per call of each validator, alternating blocks of `calls` so load drift hits both alike. */
function measure(
  validators: [Validate, Validate],
  value: unknown,
  calls: number,
  rounds: number,
): [number, number] {
  const totals = [0, 0];
  for (let r = 0; r < rounds; r++) {
    for (const i of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const validate = validators[i] as Validate;
      const started = process.hrtime.bigint();
      for (let c = 0; c < calls; c++) validate(value);
      totals[i] = (totals[i] ?? 0) + Number(process.hrtime.bigint() - started);
    }
  }
  return [(totals[0] ?? 0) / (calls * rounds), (totals[1] ?? 0) / (calls * rounds)];
}

function countPatterns(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null) return 0;
  let count = typeof (schema as Schema).pattern === 'string' ? 1 : 0;
  for (const child of Object.values(schema)) count += countPatterns(child);
  return count;
}

async function run() {
  const calls = option('calls', 20_000);
  const rounds = option('rounds', 5);
  const killer = option('killer', 24);
  const dir = await mkdtemp(path.join(tmpdir(), 'bench-bounded-regex-'));
  const schemas = [
    ...(await listSchemas('server-everything', ['stdio'])),
    ...(await listSchemas('server-memory', [])),
    ...(await listSchemas('server-filesystem', [dir])),
  ];
  await rm(dir, { recursive: true, force: true });
  const plain = makeAjv(false);
  const bounded = makeAjv(true);
  const rows: Row[] = [];
  const cases = [
    ...schemas.map(({ name, schema }) => ({ name, schema, value: sampleValue(schema) })),
    { name: 'synthetic: six everyday patterns', schema: PATTERNED, value: PATTERNED_VALUE },
  ];
  for (const { name, schema, value } of cases) {
    const validators: [Validate, Validate] = [plain.compile(schema), bounded.compile(schema)];
    const [defaultNs, boundedNs] = measure(validators, value, calls, rounds);
    rows.push({ schema: name, patterns: countPatterns(schema), defaultNs, boundedNs });
  }
  const exponential = { type: 'string', pattern: '^(a+)+$' };
  const attack = `${'a'.repeat(killer)}!`;
  const time = (validate: Validate) => {
    const started = process.hrtime.bigint();
    validate(attack);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const killerMs = { default: time(plain.compile(exponential)), bounded: time(bounded.compile(exponential)) };
  const real = rows.slice(0, -1);
  const sum = (pick: (row: Row) => number) => real.reduce((total, row) => total + pick(row), 0);
  return {
    machine: machine(),
    calls,
    rounds,
    killer,
    rows,
    real: { schemas: real.length, defaultNs: sum((r) => r.defaultNs), boundedNs: sum((r) => r.boundedNs) },
    killerMs,
  };
}

function render(results: Awaited<ReturnType<typeof run>>): string {
  const ratio = (row: { defaultNs: number; boundedNs: number }) => (row.boundedNs / row.defaultNs).toFixed(2);
  return [
    `Machine: ${results.machine.cpu}, ${results.machine.nproc} cores, Node ${results.machine.node}, load ${results.machine.loadavg}`,
    `${results.calls} calls × ${results.rounds} alternating rounds per schema and engine.`,
    '',
    table(
      ['schema', 'patterns', 'ajv default (ns/call)', 'bounded re2js (ns/call)', 'bounded / default'],
      results.rows.map((row) => [
        row.schema,
        row.patterns,
        row.defaultNs.toFixed(0),
        row.boundedNs.toFixed(0),
        ratio(row),
      ]),
    ),
    '',
    `All ${results.real.schemas} real schemas, one call each: ${results.real.defaultNs.toFixed(0)} ns default, ${results.real.boundedNs.toFixed(0)} ns bounded (${ratio(results.real)}×).`,
    `\`^(a+)+$\` against ${results.killer} a's and a "!": ${results.killerMs.default.toFixed(1)} ms default, ${results.killerMs.bounded.toFixed(3)} ms bounded.`,
  ].join('\n');
}

runIfMain(import.meta.url, run, render);
