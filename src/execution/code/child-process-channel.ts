import { spawn } from 'node:child_process';
import type { RunnerChannelFactory, RunnerExit } from './runner-channel.js';
import { runnerNodeArguments } from './runner-script.js';

/** Options of `childProcessChannel`. */
export interface ChildProcessChannelOptions {
  /** `--max-old-space-size` of the child in MiB. */
  heapMb: number;
}

const STDERR_TAIL_CHARS = 2000;

/**
 * Runners in separate Node processes speaking the runner protocol over IPC (JSON). The child
 * starts with an empty environment (no secrets from the gateway's), no stdin/stdout, and
 * `--disallow-code-generation-from-strings`; it runs the engine in a worker thread of its own
 * (`child-runner-entry`) because the engine needs a larger native stack than a main thread has.
 */
export function childProcessChannel(options: ChildProcessChannelOptions): RunnerChannelFactory {
  return (events) => {
    const env: Record<string, string> = {};
    // Windows cannot start processes without it; it holds no secret.
    if (process.env.SYSTEMROOT) env.SYSTEMROOT = process.env.SYSTEMROOT;
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${options.heapMb}`,
        '--disallow-code-generation-from-strings',
        ...runnerNodeArguments('child-runner-entry'),
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env, serialization: 'json', windowsHide: true },
    );
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    let exited = false;
    let markGone: () => void = () => {};
    const gone = new Promise<void>((resolve) => {
      markGone = resolve;
    });
    const exit = (info: RunnerExit): void => {
      markGone();
      if (exited) return;
      exited = true;
      events.exit(info);
    };
    child.on('message', (message: unknown) => events.message(message));
    child.on('error', (error) =>
      exit({ outOfMemory: false, message: `the runner process failed: ${error.message}` }),
    );
    child.on('close', (code, signal) => {
      const outOfMemory = /heap out of memory|ERR_WORKER_OUT_OF_MEMORY/i.test(stderr);
      const how = signal ? `signal ${signal}` : `code ${code}`;
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      exit({ outOfMemory, message: `the runner process exited with ${how}${tail ? `: ${tail}` : ''}` });
    });
    const setBusy = (busy: boolean): void => {
      if (busy) {
        child.ref();
        child.channel?.ref();
      } else {
        child.unref();
        child.channel?.unref();
      }
    };
    setBusy(false);
    return {
      send: (message) => {
        if (!child.connected) return;
        child.send(message, (error) => {
          if (error) exit({ outOfMemory: false, message: `the runner process is gone: ${error.message}` });
        });
      },
      kill: () => {
        // Referenced while stopping, so whoever awaits this is not cut short by the loop emptying.
        child.ref();
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        return gone;
      },
      setBusy,
    };
  };
}
