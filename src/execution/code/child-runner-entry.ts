/**
 * Entry of a runner child process (started by `childProcessChannel`). The process is only a
 * boundary: it relays runner-protocol messages between its IPC channel and a QuickJS runner
 * thread, which gets the large native stack the engine needs (a main thread's is fixed by the OS).
 * It exits as soon as the parent goes away or the runner thread stops.
 */
import { RUNNER_STACK_MB } from './runner-protocol.js';
import { startRunnerWorker } from './runner-script.js';

if (!process.send) throw new Error('child-runner-entry must be started with an IPC channel');

const HEAP_MB = 256;

const worker = startRunnerWorker('quickjs-runner-entry', {
  execArgv: [],
  env: {},
  stdout: true,
  stderr: true,
  resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, stackSizeMb: RUNNER_STACK_MB },
});
// QuickJS prints its expected abort messages (see QuickJsEngine.release); drop them.
worker.stdout.resume();
worker.stderr.resume();

process.on('message', (message) => worker.postMessage(message));
worker.on('message', (message: unknown) => {
  process.send?.(message as object);
});
worker.on('error', (error: Error & { code?: string }) => {
  process.stderr.write(`${error.code ?? 'runner error'}: ${error.message}\n`);
  process.exit(70);
});
worker.on('exit', (code) => process.exit(code === 0 ? 70 : code));
process.on('disconnect', () => process.exit(0));
