#!/usr/bin/env node
/**
 * Install by name, side by side in one run: what `aperture registry search` and `aperture add`
 * cost against a loopback MCP Registry (so the network is not measured), in process and as the
 * built CLI a user runs.
 *   - search, cold      RegistryClient.search over 40 servers, 2 per page (20 requests), no cache
 *   - search, cached    the same, answered from the state store's cache
 *   - server + plan     RegistryClient.server (cached) and planInstall of one npm server
 *   - config edit       withServerEntry into a 300-line YAML config (text splice + re-parse check)
 *   - `aperture add`    the built CLI, process start to exit (writes one entry), --dry-run
 *
 * Options: runs (20; CLI runs: 5). Prints a Markdown section on stdout.
 * Run: `npm run build && node --import tsx bench/registry-install.ts`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { withServerEntry } from '../src/config/config-file-edit.js';
import { MemoryStateStore } from '../src/foundation/ports/memory-state-store.js';
import { planInstall } from '../src/operations/registry/install-plan.js';
import { RegistryClient } from '../src/operations/registry/registry-client.js';
import { startLoopbackRegistry } from '../test/fixtures/registry/loopback-registry.js';
import { GATEWAY_CLI, machine, median, ms, option, table } from './lib/common.js';

const exec = promisify(execFile);
const runs = option('runs', 20);

const documents = Array.from({ length: 40 }, (_, i) => ({
  name: `io.example/server-${i}`,
  description: `Benchmark server ${i}`,
  version: '1.0.0',
  packages: [
    {
      registryType: 'npm',
      identifier: `@example/server-${i}`,
      version: '1.0.0',
      transport: { type: 'stdio' },
      environmentVariables: [{ name: 'TOKEN', isSecret: true, isRequired: true }],
    },
  ],
}));

async function time(body: () => unknown | Promise<unknown>, count: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await body();
    samples.push(performance.now() - started);
  }
  return median(samples);
}

await using registry = await startLoopbackRegistry(documents);
const endpoint = [{ name: 'loopback', url: registry.url }];
const state = new MemoryStateStore();
const cached = new RegistryClient({ registries: endpoint, state });
await cached.search('', 1000);
const cold = await time(
  () => new RegistryClient({ registries: endpoint, cacheTtlMs: 0 }).search('', 1000),
  runs,
);
const warm = await time(() => cached.search('', 1000), runs);
const plan = await time(async () => {
  const hit = await cached.server('io.example/server-7');
  return planInstall(hit.server, { values: {}, registry: 'loopback', hasCommand: () => false });
}, runs);
const config = [
  '# a large config',
  'servers:',
  ...Array.from({ length: 100 }, (_, i) => [`  # server ${i}`, `  s${i}:`, `    command: npx`].join('\n')),
  '',
].join('\n');
const edit = await time(
  () => withServerEntry(config, 'a.yaml', 'added', { command: 'npx', args: ['-y', 'x@1'] }),
  runs,
);

const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-registry-'));
const file = path.join(dir, 'aperture.yaml');
const cliRuns = Math.max(3, Math.round(runs / 4));
const env = { PATH: process.env.PATH ?? '', HOME: dir, APERTURE_STATE_DIR: path.join(dir, 'state') };
let n = 0;
const add = await time(async () => {
  writeFileSync(file, `registries:\n  - { url: ${registry.url}, name: loopback }\nservers:\n`);
  await exec(process.execPath, [GATEWAY_CLI, 'add', `io.example/server-${n++ % 40}`, '--config', file], {
    env,
  });
}, cliRuns);
const dry = await time(
  () =>
    exec(process.execPath, [GATEWAY_CLI, 'add', 'io.example/server-1', '--dry-run', '--config', file], {
      env,
    }),
  cliRuns,
);
const version = await time(() => exec(process.execPath, [GATEWAY_CLI, '--version'], { env }), cliRuns);
rmSync(dir, { recursive: true, force: true });

const rows: [string, number][] = [
  ['search 40 servers, cold (20 pages)', cold],
  ['search 40 servers, cached', warm],
  ['server lookup (cached) + plan', plan],
  ['config edit, 300-line YAML', edit],
  ['`aperture add` (built CLI, writes)', add],
  ['`aperture add --dry-run` (built CLI)', dry],
  ['`aperture --version` (CLI start alone)', version],
];
process.stdout.write(
  `## Install by name (registry search, add)\n\n${JSON.stringify(machine())}\n\n${table(
    ['step', 'median ms', '× cached search'],
    rows.map(([name, value]) => [name, ms(value, 2), (value / warm).toFixed(1)]),
  )}\n`,
);
