import { spawn } from 'node:child_process';
import { GatewayError } from '../../foundation/model/gateway-error.js';

/** How {@link spawnCommand} runs a program. */
export interface SpawnCommandOptions {
  cwd: string;
  /** The program's whole environment (nothing is inherited). */
  env: Readonly<Record<string, string>>;
  /** Written to stdin, then closed; absent: stdin is empty. */
  stdin?: string | undefined;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal;
  /** Names the tool in messages (`commands.wc`). */
  label: string;
}

/** How a program ended. */
export interface CommandOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  /** The last few KiB of stderr. */
  stderr: string;
}

/** Stderr kept for error messages. */
const STDERR_TAIL = 4096;
/** Grace between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;

/**
 * The one place a declared command is started: `argv[0]` with `argv[1…]`, no shell (an argument
 * is one argv item, whatever it contains). A sandboxed program arrives here already wrapped
 * (`bwrap … -- argv`, with the sandbox's environment): see `CommandBackend`.
 *
 * Errors: `backend_unavailable` (the program cannot be started), `timeout` (killed after
 * `timeoutMs`), `cancelled` (the call was), `execution_failed` (stdout over `maxOutputBytes`).
 * A non-zero exit is not an error here: the caller decides.
 */
export function spawnCommand(argv: readonly string[], options: SpawnCommandOptions): Promise<CommandOutcome> {
  const [file, ...args] = argv;
  if (file === undefined) throw new Error('spawnCommand needs a program');
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      shell: false,
      windowsHide: true,
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: GatewayError | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = (error: GatewayError) => {
      failure ??= error;
      child.kill('SIGTERM');
      killTimer ??= setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    };
    const timer = setTimeout(
      () =>
        stop(
          new GatewayError(
            'timeout',
            `${options.label}: the command did not finish within ${options.timeoutMs} ms`,
            {
              details: { timeoutMs: options.timeoutMs },
            },
          ),
        ),
      options.timeoutMs,
    );
    const onAbort = () => {
      const reason: unknown = options.signal.reason;
      stop(reason instanceof GatewayError ? reason : new GatewayError('cancelled', 'The call was cancelled'));
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.byteLength;
      if (stdoutBytes > options.maxOutputBytes) {
        stop(
          new GatewayError(
            'execution_failed',
            `${options.label}: the command wrote more than ${options.maxOutputBytes} bytes`,
            {
              details: { maxOutputBytes: options.maxOutputBytes },
            },
          ),
        );
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    // A program that exits without reading its stdin must not crash the gateway (EPIPE).
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin ?? '');
    child.once('error', (error: NodeJS.ErrnoException) => {
      failure ??= new GatewayError(
        'backend_unavailable',
        `${options.label}: cannot start "${file}": ${error.code === 'ENOENT' ? 'no such program' : error.message}`,
        { cause: error, details: { key: `${options.label}.command`, command: file } },
      );
      if (child.pid === undefined) {
        // Never started: no 'close' is promised.
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        reject(failure);
      }
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else resolve({ exitCode, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr });
    });
  });
}
