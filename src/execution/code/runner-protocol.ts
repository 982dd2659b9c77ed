import type { GatewayErrorCode } from '../../foundation/model/error-codes.js';
import type { HostMethod, SandboxLimits, SandboxLog } from './sandbox.js';

/**
 * Messages between the host (`RunnerPool`) and a runner (a worker thread, possibly inside a child
 * process). Every field is plain data that survives both structured clone and JSON (child IPC).
 * Values from and to the program travel as JSON strings: the runner never sees host objects and
 * the host never sees engine objects.
 */

/** Host → runner: start one program. `deadline` is absolute (`Date.now()` clock, same machine). */
export interface RunMessage {
  type: 'run';
  runId: number;
  code: string;
  toolIds: readonly string[];
  limits: SandboxLimits;
  deadline: number;
}

/** Host → runner: the answer to one host call. */
export type ReplyMessage =
  | { type: 'reply'; runId: number; callId: number; ok: true; json: string }
  | { type: 'reply'; runId: number; callId: number; ok: false; error: ErrorDescriptor };

/** Host → runner messages. */
export type HostToRunner = RunMessage | ReplyMessage;

/** Runner → host: the program asked for something. `params` is JSON text, unvalidated. */
export interface CallMessage {
  type: 'call';
  runId: number;
  callId: number;
  method: HostMethod;
  params: string;
}

/** Runner → host: the run is over. `recycle` asks the host to replace this runner. */
export interface DoneMessage {
  type: 'done';
  runId: number;
  result: RunResult;
  recycle: boolean;
}

/** Runner → host messages. `ready` is sent once the engine is loaded. */
export type RunnerToHost = { type: 'ready' } | CallMessage | DoneMessage;

/** A failure as data; the host turns it into a GatewayError. */
export interface ErrorDescriptor {
  code: GatewayErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** How a run ended: the result's JSON text, or an error. Logs either way. */
export type RunResult =
  | { ok: true; json: string; logs: SandboxLog[] }
  | { ok: false; error: ErrorDescriptor; logs: SandboxLog[] };

/**
 * Native stack of runner threads in MiB. QuickJS's frames run on it at up to ~16x the engine's
 * 1 MiB stack budget (quickjs-program.ts), so it must stay well above 16.
 */
export const RUNNER_STACK_MB = 32;

const HOST_METHODS: ReadonlySet<string> = new Set<HostMethod>([
  'tools.call',
  'tools.search',
  'tools.describe',
]);

/** True when `value` names a host method. */
export function isHostMethod(value: unknown): value is HostMethod {
  return typeof value === 'string' && HOST_METHODS.has(value);
}

/** Narrow check of a runner message; anything else is a protocol fault and kills the runner. */
export function isRunnerToHost(value: unknown): value is RunnerToHost {
  if (typeof value !== 'object' || value === null) return false;
  const message = value as { type?: unknown; runId?: unknown };
  if (message.type === 'ready') return true;
  if (typeof message.runId !== 'number') return false;
  if (message.type === 'call') {
    const call = value as Partial<CallMessage>;
    return typeof call.callId === 'number' && isHostMethod(call.method) && typeof call.params === 'string';
  }
  if (message.type === 'done') {
    const done = value as Partial<DoneMessage>;
    return typeof done.result === 'object' && done.result !== null && typeof done.recycle === 'boolean';
  }
  return false;
}
