import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './gateway-process.js';

/** The official conformance suite's command line. */
export const SUITE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
/**
 * The suite needs Node 22: the devDependency `node@22` provides it. Its `.bin/node` link is removed
 * at install (postinstall): it would put Node 22 first on the PATH of every npm script and npx
 * command, and the project (its native better-sqlite3 build included) runs on the system's Node 20+.
 */
export const NODE_22 = path.join(ROOT, 'node_modules/node/bin/node');

/** Runs `conformance server …args` and resolves with its exit code and output. */
export function runSuite(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(NODE_22, [SUITE, 'server', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

/** Scenario name → passed, from the suite's summary lines (`✓ name: 1 passed, 0 failed`). */
export function summary(output: string): Map<string, boolean> {
  const results = new Map<string, boolean>();
  for (const match of output.matchAll(/^([✓✗])\s+([\w-]+): (\d+) passed, (\d+) failed/gm)) {
    results.set(match[2] as string, match[1] === '✓' && match[4] === '0');
  }
  return results;
}

/** The scenarios the suite ran but does not score for the revision (extensions, pending ones). */
export function notScored(output: string): Set<string> {
  const section = output.split(/^Not scored for /m)[1] ?? '';
  return new Set([...section.matchAll(/^\s+[✓✗]\s+([\w-]+) \(/gm)].map((match) => match[1] as string));
}

/**
 * Runs the suite for `revision` against `url` and returns the scored scenarios, those that passed
 * and those that failed (a failed one is retried twice: some checks give a stream a fixed 500 ms to
 * show its frames, which a starved shared machine can miss).
 */
export async function failedScored(
  url: string,
  revision: string,
): Promise<{ failed: string[]; scored: string[]; passed: string[] }> {
  const { output } = await runSuite(['--url', url, '--requirements', revision]);
  const results = summary(output);
  const excluded = notScored(output);
  const scored = [...results.keys()].filter((name) => !excluded.has(name));
  const failed: string[] = [];
  for (const name of scored.filter((n) => results.get(n) !== true)) {
    let passed = false;
    for (let attempt = 0; attempt < 2 && !passed; attempt++) {
      const retry = summary(
        (await runSuite(['--url', url, '--scenario', name, '--spec-version', revision])).output,
      );
      passed = retry.get(name) === true;
    }
    if (!passed) failed.push(name);
  }
  return { failed, scored, passed: scored.filter((name) => !failed.includes(name)) };
}
