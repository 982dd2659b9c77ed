import { integerOption, SANDBOX_POOL_DEFAULTS } from './pool-options.js';
import { RunnerPool } from './runner-pool.js';
import type { Sandbox } from './sandbox.js';
import { workerChannel } from './worker-channel.js';

/** Options of `createQuickJsSandbox`. */
export interface QuickJsSandboxOptions {
  /** Worker threads kept, each running one program at a time. Default 2. */
  poolSize?: number;
  /** Runs waiting for a worker at most; past it `run` fails with `rate_limited`. Default 64. */
  maxQueue?: number;
  /** Runs one worker serves before it is replaced (bounds slow leaks). Default 1000. */
  maxRunsPerWorker?: number;
  /** V8 heap of each worker in MiB (messages, logs; not the program's memory). Default 256. */
  workerHeapMb?: number;
  /** Time past the deadline before an unresponsive worker is terminated. Default 500 ms. */
  graceMs?: number;
}

/**
 * The default sandbox: QuickJS (quickjs-emscripten, release-sync WebAssembly build) in a pool of
 * `worker_threads`. Each run gets a fresh QuickJS runtime and context; the WebAssembly instance is
 * reused while it stays small and is capped at the run's memory limit (see QuickJsEngine). A
 * program that spins runs on its worker's thread, never on the host's event loop; the worker
 * interrupts it at the deadline, and the host terminates and replaces a worker that does not
 * answer by then. Workers start lazily on the first runs and are kept warm afterwards.
 *
 * Chosen over isolated-vm: no native build (the WebAssembly ships in the npm package), and a
 * WebAssembly engine gives a second boundary (the wasm sandbox) under the interpreter's own.
 */
export function createQuickJsSandbox(options: QuickJsSandboxOptions = {}): Sandbox {
  const size = integerOption('poolSize', options.poolSize, SANDBOX_POOL_DEFAULTS.poolSize, 1, 256);
  return new RunnerPool({
    kind: 'quickjs',
    size,
    maxQueue: integerOption('maxQueue', options.maxQueue, SANDBOX_POOL_DEFAULTS.maxQueue, 0, 1_000_000),
    maxRunsPerRunner: integerOption(
      'maxRunsPerWorker',
      options.maxRunsPerWorker,
      1000,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    graceMs: integerOption('graceMs', options.graceMs, 500, 0, 60_000),
    createChannel: workerChannel({
      heapMb: integerOption('workerHeapMb', options.workerHeapMb, 256, 16, 16_384),
    }),
  });
}
