import { inMemoryRelayHub } from './in-memory-session-relay.js';
import { describeSessionRelayContract } from './session-relay.contract.js';

describeSessionRelayContract('inMemoryRelayHub', () => {
  const hub = inMemoryRelayHub();
  return [hub.relay(), hub.relay(), hub.relay()];
});
