import type { ApertureConfig } from '../../config/config-schema.js';
import { type ServerQueueLimits, serverQueues } from '../../operations/limits/server-queues.js';
import { DEFAULT_MAX_CONCURRENT, DEFAULT_QUEUE_MS } from '../../sources/mcp/server-queue-defaults.js';
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
    chain = [...holder.current.middlewares, queues.middleware];
    return undefined;
  };
  // A fair queue per downstream MCP server, innermost: read from the config in force at each call.
  const queues = serverQueues({
    limitsOf: (sourceId) => serverQueueLimits(parts.config(), sourceId),
    observer: parts.need('observability').queues,
  });
  let chain = [...holder.current.middlewares, queues.middleware];
  return {
    name: 'call-policies',
    // The pipeline's chain is fixed at start: this slot runs whatever policies are current.
    middleware: { 'call-policies': swappableMiddlewares(() => chain) },
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

/** The queue limits of the MCP server behind `sourceId` (`mcp:<name>`); undefined for other sources. */
function serverQueueLimits(config: ApertureConfig, sourceId: string): ServerQueueLimits | undefined {
  if (!sourceId.startsWith('mcp:')) return undefined;
  const entry = config.servers[sourceId.slice(4)];
  if (!entry) return undefined;
  return {
    maxConcurrent: entry.maxConcurrent ?? DEFAULT_MAX_CONCURRENT,
    queueMs: entry.queueMs ?? DEFAULT_QUEUE_MS,
  };
}
