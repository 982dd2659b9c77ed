import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { GatewayError } from '../../foundation/model/gateway-error.js';

/** The programs a runner process or thread starts from. */
export type RunnerEntry = 'quickjs-runner-entry' | 'child-runner-entry';

/**
 * Where an entry lives. After `npm run build` the `.js` sits next to this module in `dist/` and
 * starts as is. Under vitest or tsx we run from `src/`, where only the `.ts` exists, and a fresh
 * thread or process does not inherit the test runner's TypeScript transform: those start through
 * a two-line bootstrap that registers tsx's CommonJS hook (in-thread, ~0.2 s; tsx's ESM loader
 * spins up a hooks thread and costs ~0.6 s) and then requires the `.ts` entry.
 */
export interface RunnerScript {
  file: string;
  typescript: boolean;
}

/**
 * Finds an entry next to this module, preferring compiled JavaScript. In the bundled CLI this
 * module is part of a chunk in `dist/cli/` (scripts/bundle-cli.mjs), while the entries stay
 * unbundled in `dist/execution/code/`: the bundle looks there.
 */
export function locateRunner(entry: RunnerEntry): RunnerScript {
  const js = fileURLToPath(new URL(`./${entry}.js`, import.meta.url));
  if (existsSync(js)) return { file: js, typescript: false };
  const beside = fileURLToPath(new URL(`../execution/code/${entry}.js`, import.meta.url));
  if (existsSync(beside)) return { file: beside, typescript: false };
  const ts = fileURLToPath(new URL(`./${entry}.ts`, import.meta.url));
  if (existsSync(ts)) return { file: ts, typescript: true };
  throw new GatewayError('backend_unavailable', `the sandbox runner ${entry} is missing next to ${js}`);
}

/** CommonJS source that loads a TypeScript entry through tsx. */
function typescriptBootstrap(file: string): string {
  const tsx = createRequire(import.meta.url).resolve('tsx/cjs/api');
  return `require(${JSON.stringify(tsx)}).register();require(${JSON.stringify(file)});`;
}

/** Starts `entry` in a worker thread. */
export function startRunnerWorker(entry: RunnerEntry, options: WorkerOptions): Worker {
  const script = locateRunner(entry);
  if (!script.typescript) return new Worker(script.file, options);
  return new Worker(typescriptBootstrap(script.file), { ...options, eval: true });
}

/** Node arguments (after the runtime flags) that run `entry` as a process's main program. */
export function runnerNodeArguments(entry: RunnerEntry): string[] {
  const script = locateRunner(entry);
  return script.typescript ? ['-e', typescriptBootstrap(script.file)] : [script.file];
}
