import type { ClientChannel } from '../../src/foundation/ports/client-channel.js';

/**
 * A client session channel for unit tests: answers every request with `{}`, and `close()` runs
 * its close listeners, as a client going away does.
 */
export function closableChannel(key: string): ClientChannel & { close(): void } {
  const listeners: (() => void)[] = [];
  const self = {
    key,
    get session() {
      return self;
    },
    capabilities: () => ({}),
    request: async () => ({}),
    notify: async () => {},
    onClose: (listener: () => void) => void listeners.push(listener),
    close: () => {
      for (const listener of listeners.splice(0)) listener();
    },
  };
  return self;
}
