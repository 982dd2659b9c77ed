/**
 * Shared helpers of the benchmarks: options, percentiles, child processes that never outlive the
 * benchmark, Markdown tables. Plain Node, no dependencies.
 */
import { type ChildProcess, execFileSync, type SpawnOptions, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root (bench/lib/ is two levels below it). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The gateway CLI under test; `--gateway-cli FILE` (or BENCH_GATEWAY_CLI) measures another build. */
export const GATEWAY_CLI = path.resolve(option('gateway-cli', path.join(ROOT, 'dist', 'cli', 'main.js')));
/**
 * The `dist/` folder of another build when `--gateway-cli` names one; undefined for this checkout,
 * whose in-process benchmarks import `src/` directly.
 */
export const OTHER_BUILD_DIST =
  GATEWAY_CLI === path.join(ROOT, 'dist', 'cli', 'main.js')
    ? undefined
    : path.dirname(path.dirname(GATEWAY_CLI));
export const BASELINE_SERVER = path.join(ROOT, 'bench', 'fixtures', 'baseline-noop-server.mjs');
export const FIXTURE_CONFIG = path.join(ROOT, 'test', 'fixtures', 'gateway.yaml');
/**
 * The converted tool-retrieval benchmarks (docs/SEARCH.md, "Data sets"): they do not ship with the
 * repository; `--benchmarks DIR` or `BENCH_BENCHMARKS` names where they are, else `bench/data/`
 * (ignored by git) is looked in.
 */
export const DEFAULT_BENCHMARKS =
  process.env.BENCH_BENCHMARKS ?? path.join(ROOT, 'bench', 'data', 'tool-retrieval');

/**
 * Reads a numeric or string option from argv (`--name value` or `--name=value`), then the
 * environment (`BENCH_NAME`), then the default.
 */
export function option(name: string, fallback: number, argv?: string[]): number;
export function option(name: string, fallback: string, argv?: string[]): string;
export function option(
  name: string,
  fallback: string | number,
  argv = process.argv.slice(2),
): string | number {
  let raw: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === `--${name}`) raw = argv[i + 1];
    else if (arg.startsWith(`--${name}=`)) raw = arg.slice(name.length + 3);
  }
  raw ??= process.env[`BENCH_${name.toUpperCase().replaceAll('-', '_')}`];
  if (raw === undefined) return fallback;
  if (typeof fallback === 'number') {
    const value = Number(raw);
    if (!Number.isFinite(value)) throw new Error(`--${name}: not a number: ${raw}`);
    return value;
  }
  return raw;
}

/** Whether a bare flag (`--json`) is present. */
export function flag(name: string, argv = process.argv.slice(2)) {
  return argv.includes(`--${name}`);
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/** p50/p95/p99, mean, min and max of a list of samples (ms). */
/** What `summarize` returns. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

export function summarize(samples: Iterable<number>): Summary {
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sum / sorted.length,
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** The median (nearest rank) of unsorted values. */
export function median(values: Iterable<number>): number {
  return percentile(Float64Array.from(values).sort(), 50);
}

/** Formats milliseconds with enough digits for sub-millisecond figures. */
export function ms(value: number, digits = 3): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

/** Milliseconds with an explicit sign, for differences. */
export function signed(value: number, digits = 3): string {
  return `${value >= 0 ? '+' : '−'}${ms(Math.abs(value), digits)}`;
}

/** A Markdown table. */
export function table(headers: readonly unknown[], rows: readonly (readonly unknown[])[]): string {
  const line = (cells: readonly unknown[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The machine the figures were taken on. */
export function machine() {
  const cpus = os.cpus();
  return {
    nproc: os.availableParallelism?.() ?? cpus.length,
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    memGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadavg: os
      .loadavg()
      .map((v) => v.toFixed(2))
      .join(' '),
    git: gitRevision(),
    date: new Date().toISOString(),
  };
}

/** The commit the build was measured at, with `+dirty` when src/ has uncommitted changes. */
function gitRevision() {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
    const head = git('rev-parse', '--short', 'HEAD');
    return git('status', '--porcelain', '--untracked-files=no', '--', 'src').length > 0
      ? `${head}+dirty`
      : head;
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------------------------
// Child processes: every process a benchmark starts is tracked and killed when the benchmark
// exits, whether it ends normally, throws, or is interrupted.

/** Tracked children and the signal each gets at exit. */
const children = new Map<ChildProcess | number, NodeJS.Signals>();

/**
 * Tracks a pid (or a ChildProcess) so that it is killed at exit: SIGKILL by default; SIGTERM for
 * a child benchmark script, so that it can end its own children first. Returns an untrack function.
 */
export function trackChild(child: ChildProcess | number, signal: NodeJS.Signals = 'SIGKILL'): () => boolean {
  children.set(child, signal);
  return () => children.delete(child);
}

function killAll() {
  for (const [child, signal] of children) {
    const pid = typeof child === 'number' ? child : child.pid;
    try {
      if (pid && (typeof child === 'number' || child.exitCode === null)) process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
  children.clear();
}

let handlersInstalled = false;

/** Installs the exit, signal and crash handlers that kill every tracked child. Idempotent. */
export function installCleanup() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', () => killAll());
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      killAll();
      process.exit(130);
    });
  }
  process.on('uncaughtException', (error) => {
    console.error(error);
    killAll();
    process.exit(1);
  });
  process.on('unhandledRejection', (error) => {
    console.error(error);
    killAll();
    process.exit(1);
  });
}

/** Spawns a tracked child; `killSignal` is what it gets if the benchmark exits first. */
export function spawnTracked(
  command: string,
  args: readonly string[],
  options: SpawnOptions = {},
  killSignal: NodeJS.Signals = 'SIGKILL',
): ChildProcess {
  installCleanup();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  trackChild(child, killSignal);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Ends a child politely (SIGTERM), then forcefully after `graceMs`; resolves once it is gone. */
export function stopChild(child: ChildProcess | undefined, graceMs = 2000): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) {
    if (child) children.delete(child);
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      try {
        child.kill('SIGKILL');
      } catch {}
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      children.delete(child);
      resolve();
    });
    try {
      child.kill('SIGTERM');
    } catch {
      resolve();
    }
  });
}

/**
 * Resolves with the first match of `pattern` in a child's stderr (line by line), and the time it
 * arrived. Rejects if the child exits first or after `timeoutMs`.
 */
export function waitForStderr(
  child: ChildProcess,
  pattern: RegExp,
  timeoutMs = 15000,
): Promise<{ match: RegExpExecArray; at: number }> {
  const stderr = child.stderr;
  if (!stderr) return Promise.reject(new Error('waitForStderr: the child has no stderr pipe'));
  return new Promise((resolve, reject) => {
    let buffer = '';
    let log = '';
    const onData = (chunk: Buffer) => {
      const at = performance.now();
      buffer += chunk.toString('utf8');
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        log += `${line}\n`;
        const match = pattern.exec(line);
        if (match) {
          done();
          resolve({ match, at });
          return;
        }
        newline = buffer.indexOf('\n');
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      done();
      reject(new Error(`child exited (${code ?? signal}) before printing ${pattern}:\n${log}${buffer}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out waiting for ${pattern}:\n${log}${buffer}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      stderr.off('data', onData);
      child.off('exit', onExit);
      // Keep draining stderr so a chatty child never blocks on a full pipe.
      stderr.resume();
    };
    stderr.on('data', onData);
    child.once('exit', onExit);
  });
}

/** Resident set size of a process, in MiB, from /proc/<pid>/status (Linux only). */
export function rssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Runs `fn` as the script's main, printing errors and exiting non-zero on failure. */
export function main(fn: () => Promise<unknown>): void {
  installCleanup();
  fn().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * When the calling script is the process's entry point: runs the benchmark, writes its results
 * as JSON to `--json-out` when given, and prints the Markdown rendering (run-all imports the
 * scripts' `run`/`render` instead).
 */
export function runIfMain<T>(scriptUrl: string, run: () => Promise<T>, render: (results: T) => string): void {
  if (scriptUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  main(async () => {
    const results = await run();
    const jsonOut = option('json-out', '');
    if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2));
    process.stdout.write(`${render(results)}\n`);
  });
}

/**
 * Measures variants side by side: a warm-up, then `n` calls per variant in blocks of `blockSize`,
 * the variants' order rotated every round so drift in the machine's load hits them alike.
 * `block(variant, count, samples)` runs `count` calls, pushing each latency to `samples`; a number it
 * returns (e.g. CPU time) is summed per variant in `totals`. `onRound(r, rounds)` reports progress.
 */
export async function interleavedRounds<V extends { key: string }>(
  list: readonly V[],
  {
    n,
    warmup,
    blockSize,
    block,
    onRound,
  }: {
    n: number;
    warmup: number;
    blockSize: number;
    /** Runs `count` calls; may return a figure (e.g. CPU time) summed per variant. */
    block: (variant: V, count: number, samples?: number[]) => Promise<unknown>;
    onRound?: (round: number, rounds: number) => void;
  },
) {
  const samples: Record<string, number[]> = Object.fromEntries(list.map((v) => [v.key, []]));
  const roundP50: Record<string, number[]> = Object.fromEntries(list.map((v) => [v.key, []]));
  const totals: Record<string, number> = Object.fromEntries(list.map((v) => [v.key, 0]));
  for (let done = 0; done < warmup; done += blockSize) {
    for (const variant of list) await block(variant, Math.min(blockSize, warmup - done));
  }
  const rounds = Math.ceil(n / blockSize);
  const started = performance.now();
  for (let r = 0; r < rounds; r++) {
    const count = Math.min(blockSize, n - r * blockSize);
    const order = list.map((_, i) => list[(i + r) % list.length]!);
    for (const variant of order) {
      const round: number[] = [];
      totals[variant.key]! += ((await block(variant, count, round)) as number | undefined) ?? 0;
      samples[variant.key]!.push(...round);
      roundP50[variant.key]!.push(median(round));
    }
    onRound?.(r + 1, rounds);
  }
  return { samples, roundP50, totals, seconds: (performance.now() - started) / 1000 };
}
