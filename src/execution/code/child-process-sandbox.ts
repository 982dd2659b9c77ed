import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SandboxProfile } from '../../foundation/sandbox/sandbox-profile.js';
import { sandboxedSpawnArgs } from '../../foundation/sandbox/sandboxed-spawn.js';
import { childProcessChannel, type SpawnCommand } from './child-process-channel.js';
import { integerOption, SANDBOX_POOL_DEFAULTS } from './pool-options.js';
import { RunnerPool } from './runner-pool.js';
import type { Sandbox } from './sandbox.js';

/** Options of `createChildProcessSandbox`. */
export interface ChildProcessSandboxOptions {
  /** Processes kept (started ahead of need), each running one program at a time. Default 2. */
  poolSize?: number;
  /** Runs waiting for a process at most; past it `run` fails with `rate_limited`. Default 64. */
  maxQueue?: number;
  /**
   * Runs one process serves before it is killed and replaced. Default 1: every program gets a
   * process no earlier program touched (a pre-started spare, so the cost is mostly hidden).
   */
  maxRunsPerProcess?: number;
  /** `--max-old-space-size` of each process in MiB (the program's memory is capped separately). Default 128. */
  heapMb?: number;
  /** Time past the deadline before an unresponsive process is killed. Default 500 ms. */
  graceMs?: number;
  /**
   * Also confine each process with an OS sandbox (bubblewrap, `bwrap` the binary): no network, a
   * file system it can only read (but for a private scratch directory), `deny` unreadable, a PID
   * namespace of its own that dies with the gateway. Absent: no OS sandbox.
   */
  osSandbox?: { bwrap: string; deny?: readonly string[] };
}

/**
 * The wrapper that starts a runner process inside bubblewrap. The runner speaks over the IPC
 * channel Node opened (an inherited descriptor named by `NODE_CHANNEL_FD`), which bubblewrap passes
 * on with the environment; one scratch directory serves the pool's processes.
 */
function osSandboxWrap(
  settings: NonNullable<ChildProcessSandboxOptions['osSandbox']>,
): (command: string, args: string[], env: Record<string, string>) => SpawnCommand {
  let scratchDir: string | undefined;
  return (command, args, env) => {
    scratchDir ??= mkdtempSync(path.join(tmpdir(), 'aperture-code-'));
    const profile: SandboxProfile = {
      label: 'code-mode',
      bwrap: settings.bwrap,
      scratchDir,
      writable: [],
      deny: settings.deny ?? [],
      network: { mode: 'none' },
    };
    const run = sandboxedSpawnArgs(profile, { command, args, env });
    return run;
  };
}

/**
 * Process isolation: the same QuickJS engine and limits as `createQuickJsSandbox`, inside separate
 * Node processes (empty environment, no stdio, `--disallow-code-generation-from-strings`, IPC
 * only), killed with SIGKILL on the deadline or cancellation. An escape from the WebAssembly
 * sandbox would land in a process that holds none of the gateway's memory, secrets or sockets.
 * Costs a process start per run by default (hidden by keeping `poolSize` spares started). With
 * `osSandbox`, each process is also confined by the OS (docs/SANDBOX.md).
 */
export function createChildProcessSandbox(options: ChildProcessSandboxOptions = {}): Sandbox {
  const size = integerOption('poolSize', options.poolSize, SANDBOX_POOL_DEFAULTS.poolSize, 1, 64);
  return new RunnerPool({
    kind: 'child-process',
    size,
    maxQueue: integerOption('maxQueue', options.maxQueue, SANDBOX_POOL_DEFAULTS.maxQueue, 0, 1_000_000),
    maxRunsPerRunner: integerOption(
      'maxRunsPerProcess',
      options.maxRunsPerProcess,
      SANDBOX_POOL_DEFAULTS.maxRunsPerProcess,
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    graceMs: integerOption('graceMs', options.graceMs, 500, 0, 60_000),
    createChannel: childProcessChannel({
      heapMb: integerOption('heapMb', options.heapMb, 128, 16, 16_384),
      ...(options.osSandbox ? { wrap: osSandboxWrap(options.osSandbox) } : {}),
    }),
  });
}
