import type { Logger } from '../../foundation/ports/logger.js';
import { callerKey } from '../../foundation/ports/tool-backend.js';
import type { CallObserver } from './call-observer.js';
import { type RedactOptions, redactArgs } from './redact-args.js';

/** Options of {@link callLog}. */
export interface CallLogOptions extends RedactOptions {
  /** Where the lines go (the gateway's logger; pino in production). */
  log: Logger;
  /** Include the call's arguments (redacted). Default true. */
  args?: boolean;
}

/**
 * One `info` line per tool call, when it ends: tool id, call id, duration in ms, outcome (`ok`, or
 * `error` with the code), the caller's identity (and toolset), and the arguments with credentials
 * redacted and long strings truncated (`redactArgs`). Error messages are left out on purpose: a
 * backend's message may echo the arguments; the code says what happened.
 */
export function callLog(options: CallLogOptions): CallObserver {
  const { log } = options;
  const withArgs = options.args ?? true;
  const redact: RedactOptions = {
    ...(options.maxStringLength === undefined ? {} : { maxStringLength: options.maxStringLength }),
    ...(options.maxItems === undefined ? {} : { maxItems: options.maxItems }),
    ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
  };
  return {
    start:
      ({ tool, args, ctx }) =>
      (outcome) => {
        const line: Record<string, unknown> = {
          tool: tool.id,
          callId: ctx.callId,
          durationMs: Math.round(outcome.durationMs * 1000) / 1000,
          outcome: outcome.error ? 'error' : 'ok',
        };
        if (outcome.error) line.code = outcome.error.code;
        // Method and name (`apikey:ka`, `jwt:ka`): the same name proven two ways is two callers.
        line.caller = callerKey(ctx.caller);
        if (ctx.caller.toolset !== undefined) line.toolset = ctx.caller.toolset;
        if (withArgs) line.args = redactArgs(args, redact);
        log.info(line, 'tool call');
      },
  };
}
