import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSuite, summary } from './conformance-suite.js';
import { ROOT, startHttpGateway, stopProcess } from './gateway-process.js';

/** The project's dual-era server on the SDK v2. */
const DUAL_ERA = path.join(ROOT, 'test/fixtures/conformance/dual-era-server.mjs');

/** What a 2025 client lost through the gateway before the bridge (the server asks it; it subscribes). */
const BRIDGED_2025 = [
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'elicitation-sep1330-enums',
  'resources-subscribe',
];

/** Scenarios of the 2026-07-28 set the dual-era fixture passes directly (so the comparison bites). */
const MODERN_BASICS = ['tools-call-simple-text', 'resources-list', 'caching'];

/** Starts a downstream that prints `listening <url>`; the URL on 127.0.0.1. */
function startDownstream(args: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${args.at(-1)} did not start`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve({ child, url: match[1].replace('localhost', '127.0.0.1') });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.at(-1)} exited with ${code}`));
    });
  });
}

/**
 * The scored scenarios of `revision` that pass against `url`: one run, then those of `expected`
 * that failed are tried again (twice at most: a starved machine can miss a check's fixed window).
 * Others that fail once count as not passed: what fails directly is not asked of the gateway.
 */
async function passedDirectly(url: string, revision: string, expected: readonly string[]): Promise<string[]> {
  const { output } = await runSuite(['--url', url, '--requirements', revision]);
  const section = output.split(/^Not scored for /m)[1] ?? '';
  const excluded = new Set([...section.matchAll(/^\s+[✓✗]\s+([\w-]+) \(/gm)].map((m) => m[1] as string));
  const results = summary(output);
  for (const name of expected.filter((n) => results.get(n) === false)) {
    for (let attempt = 0; attempt < 2 && results.get(name) !== true; attempt++) {
      const retry = summary(
        (await runSuite(['--url', url, '--scenario', name, '--spec-version', revision])).output,
      );
      results.set(name, retry.get(name) === true);
    }
  }
  return [...results].filter(([name, ok]) => ok && !excluded.has(name)).map(([name]) => name);
}

/**
 * Those of `wanted` that fail against `url` at `revision`: one run of the whole set, then each
 * failed one of `wanted` again, twice at most (some checks give a stream a fixed 500 ms to show
 * its frames, which a starved shared machine can miss). Only `wanted` is retried: what fails
 * directly too is no loss of the gateway's.
 */
async function lostOf(url: string, revision: string, wanted: string[]): Promise<string[]> {
  const results = summary((await runSuite(['--url', url, '--requirements', revision])).output);
  const lost: string[] = [];
  for (const name of wanted.filter((n) => results.get(n) !== true)) {
    let passed = false;
    for (let attempt = 0; attempt < 2 && !passed; attempt++) {
      const retry = summary(
        (await runSuite(['--url', url, '--scenario', name, '--spec-version', revision])).output,
      );
      passed = retry.get(name) === true;
    }
    if (!passed) lost.push(name);
  }
  return lost;
}

/**
 * The suite at both revisions against `downstream` directly, then through `aperture serve` (flat,
 * unprefixed: the names are the server's own): whatever passes directly must pass through the
 * gateway.
 */
async function transparency(downstream: { url: string }, expected: Record<string, readonly string[]>) {
  const direct = new Map<string, string[]>();
  // The suite insists on a localhost URL (its DNS-rebinding scenario sends Host: localhost:PORT).
  const local = (url: string) => url.replace('127.0.0.1', 'localhost');
  for (const revision of ['2025-11-25', '2026-07-28'])
    direct.set(revision, await passedDirectly(local(downstream.url), revision, expected[revision] ?? []));
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-eras-'));
  try {
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      JSON.stringify({
        servers: { downstream: { url: downstream.url, prefix: false } },
        tools: { builtin: false },
        exposure: 'flat',
      }),
    );
    await using gateway = await startHttpGateway(['--config', config]);
    const lost = new Map<string, string[]>();
    for (const [revision, passed] of direct)
      lost.set(revision, await lostOf(`${local(gateway.url)}/mcp`, revision, passed));
    return { direct, lost, stderr: gateway.stderr() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('Both eras bridged: the conformance suite directly and through the gateway (suite 0.2.0-alpha.12)', () => {
  it('a dual-era server on the SDK v2: every scored scenario it passes directly at 2025-11-25 and 2026-07-28 passes through', async () => {
    const downstream = await startDownstream([DUAL_ERA]);
    try {
      const { direct, lost, stderr } = await transparency(downstream, {
        '2025-11-25': BRIDGED_2025,
        '2026-07-28': MODERN_BASICS,
      });
      expect(direct.get('2025-11-25')).toEqual(expect.arrayContaining(BRIDGED_2025));
      expect(direct.get('2026-07-28')).toEqual(expect.arrayContaining(MODERN_BASICS));
      expect(Object.fromEntries(lost)).toEqual({ '2025-11-25': [], '2026-07-28': [] });
      expect(stderr).toMatch(/keeps 2025 sessions too/);
      expect(stderr).not.toMatch(/"level":50/);
    } finally {
      await stopProcess(downstream.child);
    }
  }, 600_000);
});
