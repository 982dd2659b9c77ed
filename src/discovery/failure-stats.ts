import type { StateStore } from '../foundation/ports/state-store.js';
import { decayed } from './decay.js';

/** The state-store scope of failure statistics, keyed by tool id. */
export const FAILURE_SCOPE = 'failures';

/** The defaults of `FailureStats` (the config's `search.failures` defaults to them). */
export const FAILURE_STATS_DEFAULTS = Object.freeze({ halfLifeMs: 10 * 60_000, weight: 0.5 });

export interface FailureStatsOptions {
  store: StateStore;
  /** How fast a failure is forgiven. Default 10 minutes. */
  halfLifeMs?: number;
  /** How hard one recent failure weighs: the score is divided by 1 + weight × failures. Default 0.5. */
  weight?: number;
  now?: () => number;
}

interface Entry {
  failures: number;
  at: number;
}

/** Below this many (decayed) failures a tool is forgiven and its entry dropped. */
const FORGOTTEN = 0.01;

/**
 * Recent failures per tool, as a count that halves every `halfLifeMs` (minutes, not seconds: a
 * server that failed a moment ago is still suspect a few calls later). A success halves it too.
 * Search divides a tool's score by `1 + weight × failures`, so a flaky tool sinks below working
 * alternatives and rises again as time passes. Persisted, so a restart does not forgive.
 */
export class FailureStats {
  private readonly entries = new Map<string, Entry>();
  private readonly halfLifeMs: number;
  private readonly weight: number;
  private readonly now: () => number;

  constructor(private readonly options: FailureStatsOptions) {
    this.halfLifeMs = options.halfLifeMs ?? FAILURE_STATS_DEFAULTS.halfLifeMs;
    this.weight = options.weight ?? FAILURE_STATS_DEFAULTS.weight;
    this.now = options.now ?? Date.now;
    for (const [id, value] of options.store.entries(FAILURE_SCOPE)) this.adopt(id, value);
    // A store shared by several gateways: a tool failing behind another one counts here too.
    this.unwatch = options.store.watch?.((scope, toolId) => {
      if (scope === FAILURE_SCOPE) this.adopt(toolId, options.store.get(FAILURE_SCOPE, toolId));
    });
  }

  private readonly unwatch: (() => void) | undefined;

  private adopt(toolId: string, value: unknown): void {
    const entry = value as Entry | undefined;
    if (typeof entry?.failures === 'number' && typeof entry.at === 'number') this.entries.set(toolId, entry);
    else this.entries.delete(toolId);
  }

  /** Stops following other gateways. */
  close(): void {
    this.unwatch?.();
  }

  /** Records the outcome of a run of `toolId`. */
  record(toolId: string, ok: boolean): void {
    const now = this.now();
    const before = this.failures(toolId, now);
    const failures = ok ? before / 2 : before + 1;
    if (failures < FORGOTTEN) {
      if (this.entries.delete(toolId)) this.options.store.delete(FAILURE_SCOPE, toolId);
      return;
    }
    const entry = { failures, at: now };
    this.entries.set(toolId, entry);
    this.options.store.set(FAILURE_SCOPE, toolId, entry);
  }

  /** Recent failures of `toolId`, decayed to now. */
  failures(toolId: string, now = this.now()): number {
    const entry = this.entries.get(toolId);
    if (!entry) return 0;
    const value = decayed(entry.failures, entry.at, now, this.halfLifeMs);
    return value < FORGOTTEN ? 0 : value;
  }

  /** What a search score is multiplied by: 1 for a tool without recent failures, less the more it failed. */
  factor(toolId: string, now = this.now()): number {
    return 1 / (1 + this.weight * this.failures(toolId, now));
  }

  /** Whether any tool has recent failures (so that search can skip the pass). */
  get empty(): boolean {
    return this.entries.size === 0;
  }
}
