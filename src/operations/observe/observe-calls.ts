import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';
import { optionError } from '../../foundation/util/option-checks.js';
import type { CallObserver, CallOutcome } from './call-observer.js';

/**
 * The observe middleware (outermost in the chain): times each call once and reports its outcome
 * to every observer — spans, metrics, the call log — so that they agree on the duration and the
 * code. The call itself is passed through untouched; an observer that throws is ignored.
 *
 * A call ends for its caller when the pipeline's signal aborts (timeout, cancellation), even if
 * the backend ignores the signal and never settles. It ends here at that moment too, with the
 * abort's reason, so a hung tool still shows up as a `timeout` rather than as nothing.
 */
export function observeCalls(observers: readonly CallObserver[]): RunMiddleware {
  if (observers.length === 0) throw optionError('observeCalls', 'needs at least one observer');
  return async (call, next) => {
    const started = performance.now();
    const finishers = observers.map((observer) => startSafely(observer, call));
    let ended = false;
    const end = (error: GatewayError | undefined) => {
      if (ended) return;
      ended = true;
      const outcome: CallOutcome = { durationMs: performance.now() - started };
      if (error) outcome.error = error;
      for (const finish of finishers) {
        try {
          finish(outcome);
        } catch {
          // Observation must never change a call's outcome.
        }
      }
    };
    const signal = call.ctx.signal;
    const onAbort = () =>
      end(toGatewayError(signal.reason ?? new GatewayError('cancelled', 'The call was cancelled')));
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await next();
      end(undefined);
      return result;
    } catch (error) {
      end(toGatewayError(error));
      throw error;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };
}

const ignore = () => {};

function startSafely(observer: CallObserver, call: Parameters<CallObserver['start']>[0]) {
  try {
    return observer.start(call);
  } catch {
    return ignore;
  }
}
