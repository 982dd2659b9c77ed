import type { Catalog } from '../catalog/catalog.js';
import { createPoisoningDetector } from '../catalog/trust/poisoning-detector.js';
import {
  type TierAnswer,
  type TrustCounters,
  TrustGate,
  type TrustIssue,
} from '../catalog/trust/trust-gate.js';
import { TrustStore } from '../catalog/trust/trust-store.js';
import type { ApertureConfig } from '../config/config-schema.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { StateStore } from '../foundation/ports/state-store.js';
import { TRUST_GATED_KINDS } from '../sources/source-drivers.js';

/**
 * How often a gateway with tools held back or pending looks for approvals made by another
 * process (`aperture trust approve` writes to the shared state store). Only while something is
 * pending, so an idle gateway does no work.
 */
export const APPROVAL_RECHECK_MS = 1000;

/** What `/readyz` says of trust. */
export interface TrustReadiness {
  mode: TrustGate['mode'];
  /** Tools held back now (quarantine mode). */
  quarantined: TrustIssue[];
  /** Tools changed or flagged but served (warn mode). */
  warned: TrustIssue[];
}

/**
 * The gateway's trust on first use: the gate over the state store, the approvals, and the
 * recheck for approvals from elsewhere. Absent (undefined) with `trust.mode: off`.
 */
export class TrustParts {
  readonly gate: TrustGate;
  private catalog: Catalog | undefined;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private config: ApertureConfig['trust'],
    store: StateStore,
    log: Logger,
    tierOf?: (sourceId: string) => TierAnswer,
  ) {
    this.gate = new TrustGate({
      ...(tierOf ? { tierOf } : {}),
      mode: config.mode,
      store: new TrustStore(store),
      detect: createPoisoningDetector({ maxDescriptionChars: config.maxDescriptionChars }),
      pinned: config.pinned,
      log,
      gatedKinds: TRUST_GATED_KINDS,
    });
  }

  /** The trust parts of the config, or undefined when `trust.mode` is `off`. */
  static create(
    config: ApertureConfig['trust'],
    store: StateStore,
    log: Logger,
    tierOf?: (sourceId: string) => TierAnswer,
  ): TrustParts | undefined {
    return config.mode === 'off' ? undefined : new TrustParts(config, store, log, tierOf);
  }

  /** Starts looking for approvals made elsewhere, applied to `catalog`. */
  watch(catalog: Catalog): void {
    this.catalog = catalog;
    this.timer = setInterval(() => {
      // Only the sources with something pending: the others' verdicts cannot have changed.
      const issues = this.gate.issueList();
      if (issues.length > 0) catalog.regate(new Set(issues.map((issue) => issue.sourceId)));
    }, APPROVAL_RECHECK_MS);
    this.timer.unref?.();
  }

  /** Approves the pending versions of `ids`; approved tools rejoin the catalog at once. */
  approve(ids: readonly string[]): Record<string, string> {
    const outcomes = this.gate.approve(ids);
    this.catalog?.regate();
    return outcomes;
  }

  /**
   * Applies a reloaded `trust` section: a new mode (warn ↔ quarantine) or pins take effect at once
   * — tools now held back leave the catalog, released ones rejoin it. Turning trust off or on, or a
   * new `maxDescriptionChars` (findings already made would not be redone), needs a restart.
   */
  reconfigure(next: ApertureConfig['trust']): 'restart' | undefined {
    if (next.mode === 'off' || next.maxDescriptionChars !== this.config.maxDescriptionChars) return 'restart';
    this.config = next;
    this.gate.reconfigure({ mode: next.mode, pinned: next.pinned });
    this.catalog?.regate();
    return undefined;
  }

  readiness(): TrustReadiness {
    const issues = this.gate.issueList();
    return {
      mode: this.gate.mode,
      quarantined: issues.filter((issue) => issue.quarantined),
      warned: issues.filter((issue) => !issue.quarantined),
    };
  }

  counters(): TrustCounters {
    return this.gate.counters();
  }

  close(): void {
    clearInterval(this.timer);
  }
}
