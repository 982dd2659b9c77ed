import type { GatewayErrorCode } from '../foundation/model/error-codes.js';
import { toGatewayError } from '../foundation/model/gateway-error.js';
import type { RunCall, RunMiddleware } from '../foundation/ports/run-middleware.js';
import { sessionOf } from '../foundation/ports/tool-backend.js';
import type { FailureStats } from './failure-stats.js';
import type { LearnedQueries } from './learned-queries.js';

/**
 * Failures that are the tool's doing. A caller's mistake (bad arguments, no permission, a rate
 * limit, a cancellation) says nothing about whether the tool works, so it neither penalises it
 * nor counts as a success.
 */
const TOOL_FAILURES: ReadonlySet<GatewayErrorCode> = new Set([
  'execution_failed',
  'timeout',
  'backend_unavailable',
  'validation_output',
  'internal',
]);

/**
 * The run middleware that feeds search from what runs do: every outcome updates the failure
 * statistics, and a success in a session teaches the search that led to it (learning from use).
 */
export function searchFeedback(signals: {
  failures?: FailureStats;
  learned?: LearnedQueries;
}): RunMiddleware {
  // Feedback never changes a run's outcome: a state store that fails (closed, disk full) is logged.
  const note = (call: RunCall, update: () => void) => {
    try {
      update();
    } catch (error) {
      call.ctx.log.warn({ err: (error as Error).message }, 'search feedback was not recorded');
    }
  };
  return async (call, next) => {
    const toolId = call.tool.id;
    try {
      const result = await next();
      note(call, () => {
        signals.failures?.record(toolId, true);
        signals.learned?.noteRun(sessionOf(call.ctx.caller), toolId, true);
      });
      return result;
    } catch (error) {
      if (TOOL_FAILURES.has(toGatewayError(error).code))
        note(call, () => signals.failures?.record(toolId, false));
      throw error;
    }
  };
}
