import type { ApertureConfig } from '../../config/config-schema.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { RunMiddleware } from '../../foundation/ports/run-middleware.js';
import type { SectionApplier } from '../config-reloader.js';
import {
  type Feature,
  type FeatureFactory,
  type FeatureHttp,
  type FeatureReadiness,
  type GatewayParts,
  MIDDLEWARE_SLOTS,
} from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /**
     * The run middlewares of the features made so far, in slot order. Asking seals the chain: a
     * feature listed after the one that built the pipeline may not contribute middleware.
     */
    middlewareChain: () => RunMiddleware[];
    /** The features' HTTP contributions, in list order (read when a listener starts). */
    featureHttp: () => readonly FeatureHttp[];
  }
}

/**
 * The gateway's features, made in list order: the façade's one place for lifecycle (start in
 * order, close in reverse) and for gathering what the features contribute.
 */
export class FeatureList {
  private readonly features: Feature[] = [];
  private sealed = false;
  private closed = false;

  private constructor(private readonly parts: GatewayParts) {}

  /**
   * Makes every feature in order. When a factory throws (or two features claim one config
   * section), the features made so far are closed in reverse order and the error is rethrown.
   */
  static async create(
    factories: readonly FeatureFactory[],
    config: ApertureConfig,
    parts: GatewayParts,
  ): Promise<FeatureList> {
    const list = new FeatureList(parts);
    parts.provide('middlewareChain', () => {
      list.sealed = true;
      return list.middlewares();
    });
    parts.provide('featureHttp', () => list.http());
    try {
      for (const factory of factories) {
        const feature = await factory(config, parts);
        list.features.push(feature);
        if (list.sealed && feature.middleware && Object.keys(feature.middleware).length > 0) {
          throw new GatewayError(
            'internal',
            `feature "${feature.name}" contributes middleware but is listed after the pipeline was built`,
          );
        }
      }
      // Two features reloading one section is a listing mistake: found now, not at the first reload.
      list.appliers();
    } catch (error) {
      await list.close().catch(() => {});
      throw error;
    }
    return list;
  }

  /** The features' names, in list order. */
  get names(): string[] {
    return this.features.map((feature) => feature.name);
  }

  /** Starts every feature in list order; when one fails, every feature is closed and the error rethrown. */
  async start(): Promise<void> {
    try {
      for (const feature of this.features) await feature.start?.();
    } catch (error) {
      await this.close().catch(() => {});
      throw error;
    }
  }

  /** The run middlewares in slot order; within a slot, in list order. */
  middlewares(): RunMiddleware[] {
    const chain: RunMiddleware[] = [];
    for (const slot of MIDDLEWARE_SLOTS) {
      for (const feature of this.features) {
        const middleware = feature.middleware?.[slot];
        if (middleware) chain.push(middleware);
      }
    }
    return chain;
  }

  /** Every feature's reload appliers by section; two features may not claim one section. */
  appliers(): Record<string, SectionApplier> {
    const appliers: Record<string, SectionApplier> = {};
    const owners = new Map<string, string>();
    for (const feature of this.features) {
      for (const [section, applier] of Object.entries(feature.reload ?? {})) {
        const owner = owners.get(section);
        if (owner !== undefined) {
          throw new GatewayError(
            'internal',
            `config section "${section}" is reloaded by both "${owner}" and "${feature.name}"`,
          );
        }
        owners.set(section, feature.name);
        appliers[section] = applier;
      }
    }
    return appliers;
  }

  /** The features' HTTP contributions, in list order. */
  http(): FeatureHttp[] {
    return this.features.flatMap((feature) => (feature.http ? [feature.http] : []));
  }

  /** Every feature's part of `/readyz`: ready when none says otherwise. */
  readiness(): FeatureReadiness & { ready: boolean } {
    let ready = true;
    const report: Record<string, unknown> = {};
    for (const feature of this.features) {
      const part = feature.readiness?.();
      if (!part) continue;
      const { ready: own, ...rest } = part;
      if (own === false) ready = false;
      Object.assign(report, rest);
    }
    return { ready, ...report };
  }

  /**
   * Closes every feature in reverse list order, each once, all of them even when one fails;
   * then throws the first failure.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const failures: unknown[] = [];
    for (const feature of [...this.features].reverse()) {
      try {
        await feature.close?.();
      } catch (error) {
        failures.push(error);
        this.parts.log.warn(
          { feature: feature.name, err: error instanceof Error ? error.message : String(error) },
          'feature did not close cleanly',
        );
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
