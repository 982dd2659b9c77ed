#!/usr/bin/env node
/**
 * First answer for a Claude Desktop block of `npx -y` servers: the time from a stdio client
 * starting `aperture serve --stdio` to its first complete `tools/list`, with the gateway's package
 * cache cold (first start: every package installed) and warm (every later start), side by side in
 * one run, rounds interleaved (cold, warm, cold, warm…) so load on the machine hits both alike.
 *
 *   npx tsx bench/npx-first-answer.ts [--runs 5]      (build first: npm run build)
 *
 * Nothing is downloaded: test/fixtures/fake-npm.mjs stands in for npm (`APERTURE_NPM`, as the
 * package-cache end-to-end test does) and "installs" each package by linking it from the
 * project's node_modules. So "cold" here is the gateway's install path (lock, install into the
 * cache, verify, start from the cache) without the network: a real first install adds the
 * download (seconds to minutes per package).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { GATEWAY_CLI, machine, main, median, option, ROOT, table } from './lib/common.js';

const FAKE_NPM = path.join(ROOT, 'test', 'fixtures', 'fake-npm.mjs');

/** The servers of the block, as a user pastes them (the npm packages the project has installed). */
function claudeDesktopBlock(scratch: string) {
  return {
    mcpServers: {
      everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
      filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', scratch] },
    },
    exposure: 'flat',
  };
}

interface Sample {
  ms: number;
  tools: number;
}

/** One client session: spawn the gateway over stdio, connect, list tools once, close. */
async function firstAnswer(config: string, stateDir: string): Promise<Sample> {
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATEWAY_CLI, 'serve', '--stdio', '--config', config],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? stateDir,
      APERTURE_NPM: FAKE_NPM,
      APERTURE_STATE_DIR: stateDir,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'npx-first-answer', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    return { ms: performance.now() - started, tools: tools.length };
  } finally {
    await client.close().catch(() => {});
  }
}

export async function run() {
  const runs = option('runs', 5);
  const root = mkdtempSync(path.join(os.tmpdir(), 'aperture-npx-bench-'));
  try {
    const scratch = path.join(root, 'files');
    const config = path.join(root, 'aperture.json');
    writeFileSync(config, JSON.stringify(claudeDesktopBlock(scratch)));
    mkdirSync(scratch, { recursive: true });
    const cold: Sample[] = [];
    const warm: Sample[] = [];
    for (let round = 0; round < runs; round++) {
      // A fresh state folder: an empty package cache, as on a first start.
      const stateDir = path.join(root, `state-${round}`);
      cold.push(await firstAnswer(config, stateDir));
      // The same folder again: every package in the cache, as on every later start.
      warm.push(await firstAnswer(config, stateDir));
      process.stderr.write(`round ${round + 1}/${runs}\n`);
    }
    return { runs, cold, warm, machine: machine() };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function render(results: Awaited<ReturnType<typeof run>>): string {
  const row = (label: string, samples: Sample[]) => {
    const times = samples.map((s) => s.ms);
    const tools = [...new Set(samples.map((s) => s.tools))].join(' / ');
    return [
      label,
      `${Math.round(median(times))} ms`,
      `${Math.round(Math.min(...times))}–${Math.round(Math.max(...times))} ms`,
      tools,
    ];
  };
  const coldMedian = median(results.cold.map((s) => s.ms));
  const warmMedian = median(results.warm.map((s) => s.ms));
  return [
    `npx first answer: 3 \`npx -y\` servers (everything, memory, filesystem), ${results.runs} rounds, cold and warm interleaved`,
    '',
    table(
      ['package cache', 'first complete tools/list (median)', 'range', 'tools in it'],
      [row('cold (first start: installs)', results.cold), row('warm (later starts)', results.warm)],
    ),
    '',
    `cold / warm: ${(coldMedian / warmMedian).toFixed(2)}×`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(async () => {
    const results = await run();
    process.stdout.write(`${render(results)}\n`);
  });
}
