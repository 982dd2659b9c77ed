import { TrustParts } from '../trust-parts.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** Trust on first use and quarantine of downstream tools; undefined with `trust.mode: off`. */
    trust: TrustParts | undefined;
  }
}

/**
 * Trust on first use: the catalog's gate (so listed before the catalog), the recheck for
 * approvals made elsewhere (once the sources are loading), `/readyz`'s `trust` (quarantined tools
 * do not make the gateway unready: everything else still serves) and the management API's trust
 * routes. A reload applies a new mode (warn ↔ quarantine) or new pins at once; turning trust on or
 * off needs a restart.
 */
export const trust: FeatureFactory = (config, parts) => {
  const { log } = parts.gateway;
  const made = TrustParts.create(
    config.trust,
    parts.need('searchBacking').state,
    log.child({ component: 'trust' }),
  );
  parts.provide('trust', made);
  if (!made) return { name: 'trust', reload: { trust: () => 'restart' } };
  return {
    name: 'trust',
    start: () => made.watch(parts.need('catalog')),
    reload: { trust: (next) => made.reconfigure(next.config.trust) },
    readiness: () => ({ trust: made.readiness() }),
    http: {
      // Before the console's: its /api/admin routes end with a catch-all 404.
      routes: async ({ surface, authEnabled }) => {
        const { trustRoutes } = await import('../../surfaces/console/trust-routes.js');
        return [trustRoutes({ trust: made, authEnabled, maxBodyBytes: surface.maxBodyBytes })];
      },
    },
    close: () => made.close(),
  };
};
