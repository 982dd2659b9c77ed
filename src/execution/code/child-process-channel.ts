import { spawn } from 'node:child_process';
import type { RunnerChannelFactory, RunnerExit } from './runner-channel.js';
import { runnerNodeArguments } from './runner-script.js';

/** Options of `childProcessChannel`. */
export interface ChildProcessChannelOptions {
  /** `--max-old-space-size` of the child in MiB. */
  heapMb: number;
  /** Wraps the command (an OS sandbox: `child-process-sandbox.ts`); default: run as is. */
  wrap?: (command: string, args: string[], env: Record<string, string>) => SpawnCommand;
}

/** A command, its arguments and its whole environment. */
export interface SpawnCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
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
    const args = [
      `--max-old-space-size=${options.heapMb}`,
      '--disallow-code-generation-from-strings',
      ...runnerNodeArguments('child-runner-entry'),
    ];
    const run = options.wrap
      ? options.wrap(process.execPath, args, env)
      : { command: process.execPath, args, env };
    const child = spawn(run.command, run.args, {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: run.env,
      serialization: 'json',
      windowsHide: true,
      // Wrapped (bubblewrap), the runner is a grandchild: a group of its own is killed as one.
      detached: options.wrap !== undefined && process.platform !== 'win32',
    });
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
    // Wrapped, the runner's end is bubblewrap's exit: a runner left behind would hold the pipes
    // open and 'close' would never come, so the group is killed then.
    if (options.wrap !== undefined) {
      child.once('exit', () => {
        if (child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // Gone with it.
          }
        }
      });
    }
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
        if (options.wrap !== undefined && child.pid !== undefined) {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        } else if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        return gone;
      },
      setBusy,
    };
  };
}
