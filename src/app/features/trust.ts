import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { TierAnswer } from '../../catalog/trust/trust-gate.js';
import type { LoadedConfig } from '../../config/load-config.js';
import { isRecord } from '../../foundation/util/is-record.js';
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
    serverTiers(() => parts.gateway.loaded()),
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

/**
 * `servers.<key>.trust` for the gate. The running config answers for the servers it has; a server
 * a reload is adding lists its tools before that reload is committed, so its tier is read from
 * the file the reload read (the raw entry: a tier is a plain word, nothing to interpolate) — a
 * `manual` or `scan` server is never judged by the global mode first.
 */
function serverTiers(loaded: () => LoadedConfig): (sourceId: string) => TierAnswer {
  return (sourceId) => {
    if (!sourceId.startsWith('mcp:')) return undefined;
    const key = sourceId.slice('mcp:'.length);
    const { config, file } = loaded();
    if (Object.hasOwn(config.servers, key)) return config.servers[key]?.trust;
    return file === undefined ? undefined : tierInFile(file, key);
  };
}

function tierInFile(file: string, key: string): TierAnswer {
  try {
    const raw: unknown = parseYaml(readFileSync(file, 'utf8'));
    for (const section of ['servers', 'mcpServers']) {
      const entries = isRecord(raw) ? raw[section] : undefined;
      const entry = isRecord(entries) ? entries[key] : undefined;
      const tier = isRecord(entry) ? entry.trust : undefined;
      if (tier === 'auto' || tier === 'scan' || tier === 'manual') return tier;
    }
  } catch {
    // Unreadable now: the global mode decides, as for a server without a tier.
  }
  return undefined;
}
