import { randomUUID } from 'node:crypto';
import type { RelayHandler, SessionRelay } from './session-relay.js';

/**
 * Relays between replicas living in one process (tests, and the reference implementation):
 * `relay()` gives each replica its end; all ends of one hub reach each other.
 */
export function inMemoryRelayHub(): { relay(replica?: string): SessionRelay } {
  const handlers = new Map<string, RelayHandler>();
  return {
    relay(replica = randomUUID()) {
      return {
        replica,
        async listen(handler) {
          handlers.set(replica, handler);
        },
        async send(to, sessionId, message) {
          const handler = handlers.get(to);
          // Asynchronous like a real relay: the sender never runs the receiver's work.
          if (handler) queueMicrotask(() => handler(sessionId, structuredClone(message)));
        },
        async close() {
          handlers.delete(replica);
        },
      };
    },
  };
}
