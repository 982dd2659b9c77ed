import { maskStrings } from '../../operations/secrets/secret-masker.js';
import { SharedState } from '../shared-state.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** State shared with other gateways in Redis (`state.driver: redis`); undefined otherwise. */
    shared: SharedState | undefined;
  }
}

/**
 * Shared state (`state.driver: redis`): opened before anything reads it (search, trust, OAuth
 * tokens, call policies); a Redis that does not answer in time delays start by at most
 * `startup.waitMs`. A gateway that lost it is not ready: the balancer sends its traffic to the
 * others (it still serves what comes, from memory), and `state.reason` says why.
 */
export const sharedState: FeatureFactory = async (config, parts) => {
  const { log, maskSecrets } = parts.gateway;
  const shared =
    config.state.driver === 'redis' ? await SharedState.open(config, log, config.startup.waitMs) : undefined;
  parts.provide('shared', shared);
  if (!shared) return { name: 'shared-state' };
  return {
    name: 'shared-state',
    http: {
      options: {
        a2aTaskStore: shared.taskStore.bind(shared),
        // One Redis connection per gateway: sessions and stream events share the state's.
        redis: shared.connection,
      },
    },
    readiness: () => {
      const state = shared.readiness();
      return { ready: state.state === 'up', state: maskStrings(state, maskSecrets) };
    },
    // After the search backing (listed after this): learned queries are written to the store on close.
    close: () => shared.close(),
  };
};
