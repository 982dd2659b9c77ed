/**
 * Entry of a QuickJS runner thread (started by `workerChannel`, or by `child-runner-entry` inside
 * a child process). Serves one run at a time over `parentPort` with the runner protocol.
 */
import { parentPort } from 'node:worker_threads';
import { QuickJsEngine } from './quickjs-engine.js';
import { QuickJsProgram } from './quickjs-program.js';
import type { HostToRunner, RunMessage, RunnerToHost } from './runner-protocol.js';
import { DEFAULT_SANDBOX_LIMITS } from './sandbox-limits.js';

const port = parentPort;
if (!port) throw new Error('quickjs-runner-entry must run in a worker thread');

const engine = new QuickJsEngine();
let current: { runId: number; program: QuickJsProgram } | undefined;

function send(message: RunnerToHost): void {
  port?.postMessage(message);
}

function fail(job: RunMessage, message: string): void {
  send({
    type: 'done',
    runId: job.runId,
    result: { ok: false, error: { code: 'internal', message }, logs: [] },
    recycle: true,
  });
}

async function start(job: RunMessage): Promise<void> {
  if (current) return fail(job, 'the sandbox runner is already busy');
  let module: Awaited<ReturnType<QuickJsEngine['acquire']>>;
  try {
    module = await engine.acquire(job.limits.memoryMb);
  } catch (error) {
    return fail(job, `the sandbox engine could not start: ${String(error)}`);
  }
  let program: QuickJsProgram;
  try {
    program = new QuickJsProgram(module, job, (callId, method, params) =>
      send({ type: 'call', runId: job.runId, callId, method, params }),
    );
  } catch (error) {
    engine.release(module, job.limits.memoryMb, true);
    return fail(job, `the sandbox engine could not start: ${String(error)}`);
  }
  current = { runId: job.runId, program };
  const outcome = await program.run();
  current = undefined;
  engine.release(module, job.limits.memoryMb, program.broken);
  const logs = program.logEntries;
  const result = outcome.ok
    ? { ok: true as const, json: outcome.json, logs }
    : { ok: false as const, error: outcome.error, logs };
  send({ type: 'done', runId: job.runId, result, recycle: program.faulted });
}

port.on('message', (message: HostToRunner) => {
  if (message.type === 'run') void start(message);
  else if (message.type === 'reply' && current?.runId === message.runId) current.program.deliver(message);
});

/**
 * Runs one small program before reporting ready. V8 compiles WebAssembly functions lazily, on
 * first call: without this the first real run pays ~100 ms of compilation, which matters most for
 * runners used once (child processes started as spares).
 */
async function warmUp(): Promise<void> {
  const limits = { ...DEFAULT_SANDBOX_LIMITS, timeoutMs: 10_000 };
  const module = await engine.acquire(limits.memoryMb);
  const code = 'const r = await Promise.resolve(JSON.parse(\'{"a":[1]}\'));\nconsole.log(r);\nreturn { r }';
  const job: RunMessage = {
    type: 'run',
    runId: 0,
    code,
    toolIds: ['a:b'],
    limits,
    deadline: Date.now() + limits.timeoutMs,
  };
  const program = new QuickJsProgram(module, job, () => {});
  await program.run();
  engine.release(module, limits.memoryMb, program.broken);
}

engine
  .ready()
  .then(warmUp)
  .then(
    () => send({ type: 'ready' }),
    (error: unknown) => {
      // Crash the thread: the host sees the error event and reports the runner as unable to start.
      setImmediate(() => {
        throw error;
      });
    },
  );
