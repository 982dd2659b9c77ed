import {
  callPolicies as buildPolicies,
  type CallPolicies,
  reloadedPolicies,
  swappableMiddlewares,
} from '../call-policies.js';
import type { SectionApplier } from '../config-reloader.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** Rate limits, result cache, retries and circuit breakers in force; a reload swaps `current`. */
    policies: { current: CallPolicies };
  }
}

/**
 * Call policies (`rateLimits`, `cache`, `resilience`) in the `call-policies` slot. A reload
 * rebuilds them from the next call on; a part whose section did not change keeps its state
 * (buckets, cached results, circuits).
 */
export const callPolicies: FeatureFactory = (config, parts) => {
  const { log } = parts.gateway;
  const holder = parts.provide('policies', {
    current: buildPolicies(config, log, {}, parts.need('shared')?.policies),
  });
  // One applier for the three sections: each part whose section did not change keeps its state.
  const reload: SectionApplier = (next, diff) => {
    holder.current = reloadedPolicies(holder.current, next.config, diff.sections, log);
    return undefined;
  };
  return {
    name: 'call-policies',
    // The pipeline's chain is fixed at start: this slot runs whatever policies are current.
    middleware: { 'call-policies': swappableMiddlewares(() => holder.current.middlewares) },
    reload: { rateLimits: reload, cache: reload, resilience: reload },
    http: {
      // Before the console's: its /api/admin routes end with a catch-all 404.
      routes: async ({ authEnabled, surface }) => {
        const { cacheRoutes } = await import('../../surfaces/console/cache-routes.js');
        return [
          cacheRoutes({
            cache: { current: () => holder.current.cache, shared: holder.current.shared !== undefined },
            authEnabled,
            maxBodyBytes: surface.maxBodyBytes,
          }),
        ];
      },
    },
  };
};
