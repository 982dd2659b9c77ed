import { type ChildProcess, spawn } from 'node:child_process';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { forEachLine, isBlank } from '../../foundation/util/each-line.js';
import { parseJsonRpcLine } from '../../foundation/util/json-rpc-line.js';
import { type ProcessWatchdog, watchProcessGroup } from './process-watchdog.js';

/** How a server process ended on its own: its exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StdioProcessOptions {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string;
  /** Receives the server's stderr and the lines of stdout that are not JSON-RPC. */
  log: Logger;
  /** Time between SIGTERM and SIGKILL when stopping. Default 2000 ms. */
  killGraceMs?: number;
  /** Also given each stderr line (the console keeps the last few; `StderrRing`). */
  onStderr?: (line: string) => void;
  /** Told when the process exits on its own (not when `close` stops it), before `onclose`. */
  onExit?: (exit: ProcessExit) => void;
}

/**
 * An MCP client transport over a child process's stdin/stdout, started in a process group of its
 * own so that stopping it stops everything it spawned (SIGTERM to the group, then SIGKILL). Lines
 * on stdout that are not JSON-RPC are logged and skipped; the connection lives on. Stderr goes to
 * the log, a line at a time. A watchdog (`process-watchdog.ts`) kills the group if the gateway
 * dies without stopping it (`kill -9`).
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private watchdog: ProcessWatchdog | undefined;
  private closed = false;
  private exited: Promise<void> = Promise.resolve();

  constructor(private readonly options: StdioProcessOptions) {}

  /** The child's pid once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const { command, args, env, cwd, log } = this.options;
    const child = spawn(command, [...args], {
      env: { ...inheritedEnv(), ...env },
      ...(cwd === undefined ? {} : { cwd }),
      stdio: ['pipe', 'pipe', 'pipe'],
      // A group of its own: the whole tree can be signalled at once.
      detached: process.platform !== 'win32',
      windowsHide: true,
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(
          new GatewayError('backend_unavailable', `cannot start "${command}": ${error.message}`, {
            cause: error,
          }),
        );
      });
    });
    // Only with a group of its own: the watchdog kills the group, never the gateway's.
    if (child.pid !== undefined && process.platform !== 'win32') this.watchdog = watchProcessGroup(child.pid);
    child.on('error', (error) => this.onerror?.(error));
    child.once('close', (code, signal) => {
      if (!this.closed) {
        log.warn({ code, signal }, 'server process exited');
        this.options.onExit?.({ code, signal });
      }
      this.finish();
    });
    child.stdin?.on('error', () => {});
    forEachLine(child.stderr, (line) => {
      log.info({ stream: 'stderr' }, line);
      this.options.onStderr?.(line);
    });
    forEachLine(child.stdout, (line) => this.receive(line));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || !stdin.writable) {
      throw new GatewayError('backend_unavailable', 'the server process is not running');
    }
    const line = `${JSON.stringify(message)}\n`;
    if (!stdin.write(line)) await new Promise<void>((resolve) => stdin.once('drain', () => resolve()));
  }

  /** Stops the process group: stdin closed, SIGTERM, then SIGKILL after the grace period. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    this.closed = true;
    child.stdin?.end();
    signalGroup(child, 'SIGTERM');
    const grace = this.options.killGraceMs ?? 2000;
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), grace);
    await this.exited;
    clearTimeout(timer);
    // The leader may exit on SIGTERM while a grandchild ignores it.
    signalGroup(child, 'SIGKILL');
    this.finish();
  }

  private receive(line: string): void {
    if (isBlank(line)) return;
    let message: JSONRPCMessage;
    try {
      message = parseJsonRpcLine(line);
    } catch {
      this.options.log.warn({ line: line.slice(0, 500) }, 'skipped a stdout line that is not JSON-RPC');
      return;
    }
    this.onmessage?.(message);
  }

  private finish(): void {
    // The group is gone or going: the watchdog kills what is left (grandchildren) and exits.
    this.watchdog?.release();
    this.watchdog = undefined;
    if (this.child === undefined) return;
    this.closed = true;
    this.child = undefined;
    this.onclose?.();
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (process.platform === 'win32') child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * The environment a server inherits: enough to find executables and a home directory, not the
 * gateway's secrets. Its own `env` entries are added on top.
 */
function inheritedEnv(): Record<string, string> {
  const keep =
    process.platform === 'win32'
      ? [
          'APPDATA',
          'HOMEDRIVE',
          'HOMEPATH',
          'LOCALAPPDATA',
          'PATH',
          'PROCESSOR_ARCHITECTURE',
          'SYSTEMDRIVE',
          'SYSTEMROOT',
          'TEMP',
          'USERNAME',
          'USERPROFILE',
          'PROGRAMFILES',
        ]
      : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'LANG', 'TMPDIR', 'NODE_OPTIONS'];
  const env: Record<string, string> = {};
  for (const key of keep) {
    const value = process.env[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}
