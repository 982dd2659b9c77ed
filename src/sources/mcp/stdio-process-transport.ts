import { type ChildProcess, spawn } from 'node:child_process';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { exceededLimitOf } from '../../foundation/sandbox/sandbox-launcher.js';
import { signalSandboxMembers } from '../../foundation/sandbox/sandbox-stop.js';
import { sandboxViolationOf } from '../../foundation/sandbox/sandbox-violation.js';
import { DEFAULT_MAX_LINE_LENGTH, forEachLine, isBlank } from '../../foundation/util/each-line.js';
import { parseJsonRpcLine } from '../../foundation/util/json-rpc-line.js';
import { type ProcessWatchdog, watchProcessGroup } from './process-watchdog.js';
import { spawnFailure } from './spawn-failure.js';
import { StderrRing } from './stderr-ring.js';

/** Stderr lines the warning about an exit carries: what the server said just before it ended. */
const LAST_STDERR_LINES = 10;

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
  /** Longest stdout line (one message) read, in characters. Default 64 Mi (`forEachLine`'s). */
  maxLineLength?: number;
  /** The environment is exactly `env`: nothing inherited from the gateway (a sandboxed start). */
  isolatedEnv?: boolean;
  /** Called once the process has ended and the transport closed (a sandbox's egress proxy). */
  release?: () => Promise<void>;
  /**
   * The sandboxed server's name: a limit its sandbox reports exceeded (`sandbox-launcher.ts`)
   * fails the requests waiting with `backend_unavailable` naming the limit.
   */
  sandboxed?: string;
}

/**
 * An MCP client transport over a child process's stdin/stdout, started in a process group of its
 * own so that stopping it stops everything it spawned (SIGTERM to the group, then SIGKILL). Lines
 * on stdout that are not JSON-RPC are logged and skipped; the connection lives on. Stderr goes to
 * the log at debug, a line at a time; its last lines ride with the warning when the process exits. A watchdog (`process-watchdog.ts`) kills the group if the gateway
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
  /** Ids of the requests sent and not answered yet: those an over-long answer may be for. */
  private readonly pending = new Set<string | number>();
  /** Set when an over-long line was dealt with from its head (its request failed, or none was its). */
  private overlongSettled = false;
  /** A sandbox limit the launcher said was exceeded (the process is being killed). */
  private exceeded: { limit: string; message: string } | undefined;
  /** Kinds of sandbox refusals already logged (once each). */
  private readonly violations = new Set<string>();

  constructor(private readonly options: StdioProcessOptions) {}

  /** The child's pid once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const { command, args, env, cwd, log } = this.options;
    const child = spawn(command, [...args], {
      env: this.options.isolatedEnv ? { ...env } : { ...inheritedEnv(), ...env },
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
      child.once('error', (error) => reject(spawnFailure(command, error)));
    });
    // Only with a group of its own: the watchdog kills the group, never the gateway's.
    if (child.pid !== undefined && process.platform !== 'win32') this.watchdog = watchProcessGroup(child.pid);
    child.on('error', (error) => this.onerror?.(error));
    // Stderr is chatter while the server runs (debug), but its last lines explain an exit.
    const lastStderr = new StderrRing(LAST_STDERR_LINES);
    child.once('close', (code, signal) => {
      if (!this.closed) {
        const stderr = lastStderr.recent();
        log.warn({ code, signal, ...(stderr.length === 0 ? {} : { stderr }) }, 'server process exited');
        if (this.exceeded) this.failExceeded(this.exceeded);
        this.options.onExit?.({ code, signal });
      }
      this.finish();
    });
    child.stdin?.on('error', () => {});
    forEachLine(child.stderr, (line) => {
      if (this.options.sandboxed !== undefined) this.watchSandbox(line);
      log.debug({ stream: 'stderr' }, line);
      lastStderr.push(line);
      this.options.onStderr?.(line);
    });
    forEachLine(child.stdout, (line) => this.receive(line), {
      ...(this.options.maxLineLength === undefined ? {} : { maxLineLength: this.options.maxLineLength }),
      onOverlong: (head) => this.overlong(head),
      onOverlongEnd: (tail) => this.overlongEnded(tail),
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || !stdin.writable) {
      throw new GatewayError('backend_unavailable', 'the server process is not running');
    }
    if ('method' in message && 'id' in message) this.pending.add(message.id);
    else if ('method' in message && message.method === 'notifications/cancelled') {
      // A request given up (timeout, abort) may never be answered: no longer one to fail.
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.pending.delete(requestId);
    }
    const line = `${JSON.stringify(message)}\n`;
    if (!stdin.write(line)) await new Promise<void>((resolve) => stdin.once('drain', () => resolve()));
  }

  /**
   * Stops the process group: stdin closed, SIGTERM, then SIGKILL after the grace period. A
   * sandboxed server gets its SIGTERM past bubblewrap (`signalSandboxMembers`): signalled itself,
   * bubblewrap would end the sandbox's processes at once, without their grace.
   */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    this.closed = true;
    child.stdin?.end();
    const inside =
      this.options.sandboxed !== undefined && child.pid !== undefined
        ? signalSandboxMembers(child.pid, 'SIGTERM')
        : 0;
    if (inside === 0) signalGroup(child, 'SIGTERM');
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
    if (!('method' in message) && message.id !== undefined) this.pending.delete(message.id);
    this.onmessage?.(message);
  }

  /**
   * A message past the line limit cannot be read, but its request must not wait for its timeout:
   * it fails at once with `payload_too_large` — from the line's head when that names a pending
   * id, else when the line ends (the SDK writes `id` last) — and the next line reads as usual. A
   * line whose head shows a request or notification of the server's fails no call.
   */
  private overlong(head: string): void {
    this.options.log.warn({ head: head.slice(0, 100) }, 'dropped a stdout message over the line limit');
    const id = answerId(head, /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]*")/);
    if (id !== undefined && this.pending.has(id)) {
      this.overlongSettled = true;
      this.failTooLarge([id]);
    } else {
      this.overlongSettled = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"method"\s*:/.test(head);
    }
  }

  private overlongEnded(tail: string): void {
    if (this.overlongSettled) {
      this.overlongSettled = false;
      return;
    }
    const id = answerId(tail, /"id"\s*:\s*(-?\d+|"[^"\\]*")\s*\}\s*$/);
    // Not telling whose answer it was, every request waiting could be the one: all fail.
    this.failTooLarge(id !== undefined && this.pending.has(id) ? [id] : [...this.pending]);
  }

  private failTooLarge(ids: readonly (string | number)[]): void {
    const limit = this.options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
    for (const id of ids) {
      this.pending.delete(id);
      // The GatewayError rides in `data` as an object no server can forge; `callFailure` uses it.
      const failure = new GatewayError(
        'payload_too_large',
        `the server's answer is longer than the stdio line limit (${limit} characters)`,
        { details: { limitChars: limit } },
      );
      this.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: -32603, message: failure.message, data: failure },
      });
    }
  }

  /** A sandboxed server's stderr line: a limit its launcher says was exceeded, or a refusal seen. */
  private watchSandbox(line: string): void {
    const { log } = this.options;
    if (this.exceeded === undefined) {
      this.exceeded = exceededLimitOf(line);
      if (this.exceeded)
        log.warn({ limit: this.exceeded.limit }, `sandbox limit exceeded: ${this.exceeded.message}`);
    }
    const violation = sandboxViolationOf(line);
    if (violation && !this.violations.has(violation.kind)) {
      this.violations.add(violation.kind);
      log.warn({ kind: violation.kind, line: line.slice(0, 300) }, `sandbox refusal: ${violation.hint}`);
    }
  }

  /** Fails every request waiting: the sandbox killed the server for exceeding `exceeded.limit`. */
  private failExceeded(exceeded: { limit: string; message: string }): void {
    const failure = new GatewayError(
      'backend_unavailable',
      `server ${this.options.sandboxed} exceeded its sandbox limit ${exceeded.message}`,
      { details: { sandboxLimit: exceeded.limit } },
    );
    for (const id of this.pending) {
      // The GatewayError rides in `data`, as in `failTooLarge`: `callFailure` uses it.
      this.onmessage?.({
        jsonrpc: '2.0',
        id,
        error: { code: -32603, message: failure.message, data: failure },
      });
    }
    this.pending.clear();
  }

  private finish(): void {
    // The group is gone or going: the watchdog kills what is left (grandchildren) and exits.
    this.watchdog?.release();
    this.watchdog = undefined;
    const release = this.options.release;
    if (release !== undefined && this.child !== undefined) void release().catch(() => {});
    this.pending.clear();
    if (this.child === undefined) return;
    this.closed = true;
    this.child = undefined;
    this.onclose?.();
  }
}

/** The JSON-RPC id `pattern` finds in a piece of a message (number or plain string), or undefined. */
function answerId(text: string, pattern: RegExp): string | number | undefined {
  const raw = pattern.exec(text)?.[1];
  if (raw === undefined) return undefined;
  return raw.startsWith('"') ? raw.slice(1, -1) : Number(raw);
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
