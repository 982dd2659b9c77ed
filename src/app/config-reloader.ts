import {
  type ConfigDiff,
  diffConfig,
  type KeyedDiff,
  type SourceSectionsDiff,
  sourceSectionsOf,
} from '../config/config-diff.js';
import type { ApertureConfig } from '../config/config-schema.js';
import type { LoadedConfig } from '../config/load-config.js';
import { errorForSurface } from '../foundation/model/error-hints.js';
import { toGatewayError } from '../foundation/model/gateway-error.js';
import type { Logger } from '../foundation/ports/logger.js';

/** What started a reload: the watched file changed, SIGHUP, or `POST /api/admin/reload`. */
export type ReloadTrigger = 'watch' | 'signal' | 'api';

/**
 * Applies one changed config section to the running gateway. Given the whole diff and the new
 * config; may be async (servers restart). Answers `'restart'` when this particular change cannot
 * be applied live (its sections then count as needing a restart). Sections without an applier
 * always need a restart.
 */
export type SectionApplier = (
  next: LoadedConfig,
  diff: ConfigDiff,
) => undefined | 'restart' | Promise<undefined | 'restart'>;

/**
 * What a reload did: the answer of `POST /api/admin/reload` and the fields of its log line; each
 * source driver's section (`servers`, `openapi`, `agents`, …) carries its entries' diff.
 */
export type ReloadOutcome = SourceSectionsDiff & ReloadSummary;

interface ReloadSummary {
  /** False when the file held nothing new. */
  changed: boolean;
  trigger: ReloadTrigger;
  /** Top-level sections that differ. */
  sections: string[];
  overrides: KeyedDiff;
  /** Changed sections applied live. */
  applied: string[];
  /** Changed sections that take effect only after a restart (the running values are kept). */
  restartRequired: string[];
  /** Wall time from reading the file to the new sources' first try, in ms. */
  ms: number;
}

/** Options of `ConfigReloader`. */
export interface ConfigReloaderOptions {
  /** The config running now. */
  current: () => LoadedConfig;
  /** Reads and validates the config file again, as `config validate` does; throws `config_invalid`. */
  load: () => Promise<LoadedConfig>;
  /** Appliers by top-level section name. */
  appliers: Readonly<Record<string, SectionApplier>>;
  /** Sections that may differ without any effect (editor hints). */
  inert?: readonly string[];
  /** Takes the config now running: the new one, with restart-only sections kept at their old values. */
  commit: (loaded: LoadedConfig) => void;
  log: Logger;
}

/**
 * Hot reload: reads the config again, diffs it against the running one and applies each changed
 * section through its applier — only what changed. A config that does not load is refused as a
 * whole, logged once with the message `config validate` prints, and the running one stays.
 * Reloads run one at a time; requests that arrive meanwhile share the one after it.
 */
export class ConfigReloader {
  private running: Promise<ReloadOutcome> | undefined;
  private queued: Promise<ReloadOutcome> | undefined;
  /** The message of the last refusal: the same broken file seen again is not logged again. */
  private lastRefusal: string | undefined;

  constructor(private readonly options: ConfigReloaderOptions) {}

  /** Reloads now, or right after the reload in progress (several requests meanwhile share one). */
  reload(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    if (!this.running) {
      this.running = this.run(trigger).finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    // The reload in progress may have read the file before the latest edit: one more follows.
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.reload(trigger);
      });
    return this.queued;
  }

  private async run(trigger: ReloadTrigger): Promise<ReloadOutcome> {
    const { log } = this.options;
    const started = performance.now();
    let next: LoadedConfig;
    try {
      next = await this.options.load();
    } catch (error) {
      const failure = toGatewayError(error);
      // Worded as `aperture config validate` prints it, so the two can be compared.
      const worded = errorForSurface(failure, 'cli')
        .message.replace(/\s*\n\s*/g, ' ')
        .trim();
      const message = `${failure.code}: ${worded}`;
      // An editor's save may fire several reloads of one broken file: it is logged once.
      if (message !== this.lastRefusal) {
        log.error(
          { trigger, code: failure.code, err: failure.message },
          `config reload refused, the running config stays: ${message}`,
        );
      }
      this.lastRefusal = message;
      throw failure;
    }
    this.lastRefusal = undefined;
    const current = this.options.current();
    const diff = diffConfig(current.config, next.config);
    const live: string[] = [];
    const restartRequired: string[] = [];
    const inert = new Set(this.options.inert ?? []);
    for (const section of diff.sections) {
      if (inert.has(section)) continue;
      (Object.hasOwn(this.options.appliers, section) ? live : restartRequired).push(section);
    }
    const applied: string[] = [];
    // Appliers run in the order of the sections, each once (one may serve several sections).
    const outcomes = new Map<SectionApplier, undefined | 'restart'>();
    try {
      for (const section of live) {
        const applier = this.options.appliers[section];
        if (!applier) continue;
        if (!outcomes.has(applier)) outcomes.set(applier, await applier(next, diff));
        (outcomes.get(applier) === 'restart' ? restartRequired : applied).push(section);
      }
    } finally {
      // Even after an applier failed, what was applied is what runs: the next diff starts there. A
      // section whose applier threw (or never ran) keeps its running value, so the next reload
      // tries it again instead of taking it for applied.
      const notApplied = live.filter(
        (section) => !applied.includes(section) && !restartRequired.includes(section),
      );
      this.options.commit(keepRunning(current, next, [...restartRequired, ...notApplied]));
    }
    const outcome: ReloadOutcome = {
      changed: !diff.unchanged,
      trigger,
      sections: diff.sections,
      ...sourceSectionsOf(diff),
      overrides: diff.overrides,
      applied,
      restartRequired,
      ms: Math.round(performance.now() - started),
    };
    if (outcome.changed) {
      log.info(outcome, 'config reloaded');
      if (restartRequired.length > 0) {
        log.warn(
          { sections: restartRequired },
          'these changed sections take effect after a restart; their running values are kept',
        );
      }
    }
    return outcome;
  }
}

/** The new config with `sections` kept at their running values, so the next reload reports them again. */
function keepRunning(current: LoadedConfig, next: LoadedConfig, sections: readonly string[]): LoadedConfig {
  if (sections.length === 0) return next;
  const kept: Record<string, unknown> = { ...next.config };
  for (const section of sections) {
    const old = (current.config as Record<string, unknown>)[section];
    if (old === undefined) delete kept[section];
    else kept[section] = old;
  }
  return { ...next, config: Object.freeze(kept) as ApertureConfig };
}
