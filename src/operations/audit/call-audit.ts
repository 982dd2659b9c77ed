import { toGatewayError } from '../../foundation/model/gateway-error.js';
import type { AuditTrail } from '../../foundation/ports/audit-trail.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';
import { callerKey } from '../../foundation/ports/tool-backend.js';
import { redactArgs } from '../observe/redact-args.js';

/** Options of {@link callAudit}. */
export interface CallAuditOptions {
  trail: AuditTrail;
  /** `audit.calls` now: read per call, so a reload turns it on or off at once. */
  enabled: () => boolean;
}

/**
 * The run middleware of `audit.calls: true`: one `call` line per tool call once it ended, with the
 * caller, the tool, the surface, the outcome (`ok`, `error` for a result with `isError`, else the
 * error's code) and the arguments redacted as the call log redacts them. The call waits for its
 * line to be written, so a call that answered is in the trail.
 */
export function callAudit(options: CallAuditOptions): RunMiddleware {
  return async (call, next) => {
    if (!options.enabled()) return next();
    const started = performance.now();
    const line = (decision: string) =>
      options.trail.record({
        kind: 'call',
        actor: callerKey(call.ctx.caller),
        tool: call.tool.id,
        ...(call.ctx.caller.surface === undefined ? {} : { surface: call.ctx.caller.surface }),
        decision,
        details: {
          callId: call.ctx.callId,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          args: redactArgs(call.args),
        },
      });
    try {
      const result = await next();
      await line(result.isError === true ? 'error' : 'ok');
      return result;
    } catch (error) {
      await line(toGatewayError(error).code);
      throw error;
    }
  };
}
