import { GUEST_FILE_NAME, GUEST_LINE_OFFSET } from './quickjs-guest.js';
import type { ErrorDescriptor } from './runner-protocol.js';
import type { SandboxLimits } from './sandbox.js';

/** What was running when the VM threw. */
export type FailureStage = 'boot' | 'compile' | 'program' | 'result';

/** What the guest's `describe` reports about a thrown value (strings already length-capped). */
export interface GuestErrorInfo {
  name: string;
  message: string;
  stack?: string;
  code?: string;
}

/** The name program frames get in reported stacks. */
const PROGRAM_FILE = '<program>';
const FRAME = new RegExp(`${escapeRegExp(GUEST_FILE_NAME)}:(\\d+)(?::(\\d+))?`, 'g');

/**
 * Turns what the VM threw into the run's error. QuickJS reports its own limits as InternalErrors
 * (out of memory, stack overflow, interrupted, string too long); everything else depends on
 * `stage`. Callers check host-side stops (deadline, tool-call budget) first: an interrupt looks
 * like any InternalError. `thrownNull`: the exception value was `null`, which QuickJS leaves when
 * an allocation fails where it cannot build its "out of memory" error; a program whose text never
 * throws or rejects cannot have thrown it itself, so that is the memory limit too.
 */
export function classifyGuestError(
  info: GuestErrorInfo | undefined,
  stage: FailureStage,
  code: string,
  limits: SandboxLimits,
  thrownNull = false,
): ErrorDescriptor {
  const internal = info?.name === 'InternalError' ? info.message : undefined;
  const memory = `the program exceeded its memory limit (${limits.memoryMb} MiB)`;
  if (internal === 'out of memory') return violation('memory_mb', memory);
  if (internal === 'string too long') {
    return violation('memory_mb', `${memory}: it built a string longer than the engine allows`);
  }
  if (thrownNull && (stage === 'program' || stage === 'result')) {
    if (!/\b(throw|reject)\b/.test(code)) return violation('memory_mb', memory);
    return {
      code: 'execution_failed',
      message: `Uncaught null (unless the program threw null itself, it exceeded its memory limit of ${limits.memoryMb} MiB)`,
      details: { name: 'Error' },
    };
  }
  if (internal === 'stack overflow') return stackViolation();
  if (internal === 'interrupted') return timeoutError(limits);
  if (stage === 'compile' && info?.name === 'SyntaxError') return syntaxErrorAt(info, code);
  const message = info?.message ?? 'unknown error';
  if (stage === 'result') return violation('json', `the result is not JSON-serialisable: ${message}`);
  if (stage === 'boot') return { code: 'internal', message: `the sandbox failed to start: ${message}` };
  return describeProgramError(info);
}

/** `sandbox_violation` naming the limit in `details.limit`. */
export function violation(limit: string, message: string): ErrorDescriptor {
  return { code: 'sandbox_violation', message, details: { limit } };
}

/** The stack limit, whether QuickJS or the thread's native stack hit it first. */
export function stackViolation(): ErrorDescriptor {
  return violation('stack_size', 'the program exceeded the stack size limit (too deep recursion)');
}

/** The time limit. */
export function timeoutError(limits: SandboxLimits): ErrorDescriptor {
  return { code: 'timeout', message: `the program ran longer than ${limits.timeoutMs} ms` };
}

/**
 * An uncaught program error as `execution_failed`. The message names the host error code when the
 * program let a failed tool call escape, so the agent sees `GatewayError [tool_not_found]: …`.
 */
export function describeProgramError(info: GuestErrorInfo | undefined): ErrorDescriptor {
  if (!info)
    return { code: 'execution_failed', message: 'the program threw a value that cannot be described' };
  const { name, message, code } = info;
  const text = code
    ? `${name || 'Error'} [${code}]: ${message}`
    : name
      ? `${name}: ${message}`
      : `Uncaught ${message}`;
  const details: Record<string, unknown> = { name: name || 'Error' };
  if (code) details.code = code;
  const location = programLocation(info.stack);
  if (location) {
    details.line = location.line;
    details.column = location.column;
  }
  if (info.stack) details.stack = remapStack(info.stack);
  return { code: 'execution_failed', message: text, details };
}

/** A compile-time SyntaxError as `invalid_request` with a 1-based line/column in the user's code. */
export function syntaxErrorAt(info: GuestErrorInfo, code: string): ErrorDescriptor {
  const lines = code.split('\n');
  const raw = firstFrame(info.stack);
  let line = raw ? raw.line - GUEST_LINE_OFFSET : 1;
  let column = raw?.column ?? 1;
  // "Unexpected end of input" is reported on the wrapper's closing line, one past the code.
  if (line > lines.length) {
    line = lines.length;
    column = (lines[lines.length - 1]?.length ?? 0) + 1;
  }
  if (line < 1) {
    line = 1;
    column = 1;
  }
  return {
    code: 'invalid_request',
    message: `SyntaxError: ${info.message} (line ${line}, column ${column})`,
    details: { line, column },
  };
}

/** The innermost program frame of a stack, relative to the user's code. */
export function programLocation(stack: string | undefined): { line: number; column: number } | undefined {
  const frame = firstFrame(stack);
  if (!frame) return undefined;
  const line = frame.line - GUEST_LINE_OFFSET;
  return line >= 1 ? { line, column: frame.column ?? 1 } : undefined;
}

/** Rewrites `<input>:L:C` frames to `<program>:L':C` with L' relative to the user's code. */
export function remapStack(stack: string): string {
  return stack.replace(FRAME, (_match, line: string, column: string | undefined) => {
    const mapped = Math.max(1, Number(line) - GUEST_LINE_OFFSET);
    return column === undefined ? `${PROGRAM_FILE}:${mapped}` : `${PROGRAM_FILE}:${mapped}:${column}`;
  });
}

function firstFrame(stack: string | undefined): { line: number; column: number | undefined } | undefined {
  if (!stack) return undefined;
  const match = new RegExp(FRAME.source).exec(stack);
  if (!match) return undefined;
  return { line: Number(match[1]), column: match[2] === undefined ? undefined : Number(match[2]) };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
