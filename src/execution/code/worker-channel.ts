import type { RunnerChannelFactory, RunnerExit } from './runner-channel.js';
import { RUNNER_STACK_MB } from './runner-protocol.js';
import { startRunnerWorker } from './runner-script.js';

/** Options of `workerChannel`. */
export interface WorkerChannelOptions {
  /** V8 heap of the runner thread in MiB (the program's memory is the engine's, not this). */
  heapMb: number;
}

/**
 * Runners in `worker_threads`. A worker gets its own V8 isolate and event loop, so a spinning
 * program never delays the host's event loop, and `terminate()` stops it even mid-WebAssembly.
 * It starts with no inherited flags or environment, and a large native stack (see RUNNER_STACK_MB).
 */
export function workerChannel(options: WorkerChannelOptions): RunnerChannelFactory {
  return (events) => {
    const worker = startRunnerWorker('quickjs-runner-entry', {
      execArgv: [],
      env: {},
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb, stackSizeMb: RUNNER_STACK_MB },
    });
    let exited = false;
    const exit = (info: RunnerExit): void => {
      if (exited) return;
      exited = true;
      events.exit(info);
    };
    // QuickJS prints its abort messages (see QuickJsEngine.release); they are expected and dropped.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on('message', (message: unknown) => events.message(message));
    worker.on('error', (error: Error & { code?: string }) => {
      exit({ outOfMemory: error.code === 'ERR_WORKER_OUT_OF_MEMORY', message: error.message });
    });
    worker.on('exit', (code) =>
      exit({ outOfMemory: false, message: `the runner thread exited with code ${code}` }),
    );
    worker.unref();
    return {
      send: (message) => worker.postMessage(message),
      kill: async () => {
        // Referenced while stopping, so whoever awaits this is not cut short by the loop emptying.
        worker.ref();
        await worker.terminate();
      },
      setBusy: (busy) => (busy ? worker.ref() : worker.unref()),
    };
  };
}
