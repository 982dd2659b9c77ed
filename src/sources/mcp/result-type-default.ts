import type { Transport } from '@modelcontextprotocol/client';
import type { Logger } from '../../foundation/ports/logger.js';
import { carryingTaskAnswer } from './downstream-tasks.js';
import { MODERN_REVISION } from './modern-requests.js';

/** Servers already logged as omitting `resultType` (once per server for the process). */
const warned = new Set<string>();

/**
 * Makes `transport` accept a 2026-07-28 server's result that omits `resultType` as complete.
 *
 * The revision requires the field on every result, and the SDK refuses a result without it
 * ("missing required resultType"), so one server that forgets it would fail every call. The
 * gateway is liberal in what it accepts from servers: such a result is given `resultType:
 * "complete"` before the SDK reads it, and the server is logged once (by `server`) so its
 * operator can fix it. Only on a connection that negotiated the revision: a 2025-era result has no
 * such field, and the SDK already reads it as complete.
 *
 * The hook sits on the transport's `onmessage` (which the SDK client sets when it connects), so
 * every response — on a request's own stream or not — passes through it.
 */
export function acceptingMissingResultType(transport: Transport, server: string, log: Logger): Transport {
  let handler: Transport['onmessage'];
  const modern = () => (transport as { protocolVersion?: string }).protocolVersion === MODERN_REVISION;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => handler,
    set: (next: Transport['onmessage']) => {
      handler =
        next &&
        ((message, extra) => {
          // A task answer (Tasks extension) is carried as a complete result too (`downstream-tasks.ts`).
          next(modern() ? completed(carryingTaskAnswer(message), server, log) : message, extra);
        });
    },
  });
  return transport;
}

/** `message` with `resultType: "complete"` when it is a result that has none. */
export function completed<M>(message: M, server: string, log: Logger): M {
  const result = (message as { id?: unknown; result?: unknown }).result;
  if (
    (message as { id?: unknown }).id === undefined ||
    typeof result !== 'object' ||
    result === null ||
    Array.isArray(result) ||
    'resultType' in result
  )
    return message;
  if (!warned.has(server)) {
    warned.add(server);
    log.warn(
      { url: server },
      'this 2026-07-28 server omits resultType in its results; they are taken as complete (the revision requires the field)',
    );
  }
  return { ...message, result: { ...result, resultType: 'complete' } };
}
