import type { Tool, ToolOriginKind } from '../../foundation/model/tool.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { CatalogEntry } from '../catalog-entry.js';
import type { ToolGate, Withheld } from '../tool-gate.js';
import { isFlagged, type PoisoningDetector, type PoisoningFinding } from './poisoning-detector.js';
import { changedFields, type FingerprintField, fingerprintTool } from './tool-fingerprint.js';
import type { ApproveOutcome, TrustStore } from './trust-store.js';

/** `trust.mode`: `off` checks nothing; `warn` logs and counts; `quarantine` also holds tools back. */
export type TrustMode = 'off' | 'warn' | 'quarantine';

/**
 * A server's trust tier (`servers.<key>.trust`), which overrides `trust.mode` for its tools:
 * `auto` — served, changes logged; `scan` — a new or changed version is served at once when the
 * poisoning detector passes it, else quarantined with the rules that matched; `manual` — every
 * new or changed version waits for approval.
 */
export type TrustTier = 'auto' | 'scan' | 'manual';

/** What {@link TrustGateOptions.tierOf} answers: a tier, or undefined (no tier: `trust.mode` decides). */
export type TierAnswer = TrustTier | undefined;

/** Options of {@link TrustGate}. */
export interface TrustGateOptions {
  mode: TrustMode;
  store: TrustStore;
  detect: PoisoningDetector;
  /** `trust.pinned`: tool id → the one fingerprint hash trusted for it, whatever the store says. */
  pinned?: Readonly<Record<string, string>>;
  log: Logger;
  /**
   * The origin kinds checked: tools from elsewhere, the ones a third party can change under the
   * agent (the app passes the kinds its source drivers mark `trustGated`). Tools of every other
   * kind — built-ins, the user's own modules, skills — are code and config the user wrote and
   * reviews as such.
   */
  gatedKinds: ReadonlySet<ToolOriginKind>;
  /** The clock of recorded times. Default `new Date()`. */
  now?: () => Date;
  /** The trust tier of a source's tools; absent: every source follows `mode`. */
  tierOf?: (sourceId: string) => TierAnswer;
}

/** A tool judged not trusted during this run, as `/readyz` and `trust list` show it. */
export interface TrustIssue {
  id: string;
  /** The source that publishes it (`mcp:<server>`, …). */
  sourceId: string;
  reason: Withheld['reason'];
  /** Held back (quarantine mode) or served with a warning (warn mode). */
  quarantined: boolean;
  /** The server's trust tier, when it has one. */
  tier?: TrustTier;
  changed: FingerprintField[];
  findings: PoisoningFinding[];
  fingerprint: string;
}

/** What the gate has counted since the start, for `/metrics`. */
export interface TrustCounters {
  /** Versions seen that differ from the trusted one (each new version counted once). */
  changed: number;
  /** Versions the poisoning detector flagged (each counted once). */
  flagged: number;
  /** Tools held back now. */
  quarantined: number;
}

/**
 * Trust on first use, then quarantine. The first clean version of a tool is recorded as trusted;
 * a later version whose fingerprint differs — or any version the poisoning detector flags — is
 * pending until approved (`approve`, the CLI, or a pinned fingerprint). In quarantine mode a
 * pending tool is withheld from the catalog; in warn mode it is served and reported.
 */
export class TrustGate implements ToolGate {
  private currentMode: TrustMode;
  private pinned: Readonly<Record<string, string>> | undefined;
  private readonly issues = new Map<string, TrustIssue>();
  private readonly counts = { changed: 0, flagged: 0 };
  /** Detector findings per tool object: re-listing an unchanged tool re-uses the same object. */
  private readonly findingsOf = new WeakMap<Tool, PoisoningFinding[]>();
  private readonly now: () => Date;

  constructor(private readonly options: TrustGateOptions) {
    this.currentMode = options.mode;
    this.pinned = options.pinned;
    this.now = options.now ?? (() => new Date());
  }

  get mode(): TrustMode {
    return this.currentMode;
  }

  /**
   * New settings from a config reload: the mode (warn or quarantine) and the pinned fingerprints.
   * Verdicts change only when the catalog asks again (`Catalog.regate`).
   */
  reconfigure(settings: { mode: TrustMode; pinned?: Readonly<Record<string, string>> }): void {
    this.currentMode = settings.mode;
    this.pinned = settings.pinned;
  }

  check(sourceEntry: CatalogEntry): Withheld | undefined {
    const tool = sourceEntry.tool;
    if (this.mode === 'off' || !this.options.gatedKinds.has(tool.origin.kind)) return undefined;
    const tier = this.options.tierOf?.(tool.origin.sourceId);
    // What to do with a version that is not the trusted one: hold it back, or accept it when clean.
    const hold = tier === undefined ? this.mode === 'quarantine' : tier !== 'auto';
    const { store } = this.options;
    const fingerprint = fingerprintTool(tool);
    const pin = this.pinned?.[tool.id];
    const record = store.get(tool.id);
    const trusted = pin === undefined ? record?.trusted : { hash: pin, fields: record?.trusted?.fields };
    if (trusted?.hash === fingerprint.hash) {
      // The trusted version (again): a server that went back to it has nothing pending.
      if (record?.pending) store.put({ id: tool.id, ...(record.trusted ? { trusted: record.trusted } : {}) });
      this.issues.delete(tool.id);
      return undefined;
    }
    const findings = this.findings(tool);
    const flagged = isFlagged(findings);
    // First use is trusted when clean, except in the manual tier; the scan tier also takes a clean
    // changed version (a pin still wins: it names the one version trusted).
    const acceptClean = tier === 'manual' ? false : tier === 'scan' ? pin === undefined : !trusted;
    if (acceptClean && !flagged) {
      if (trusted) {
        this.options.log.info(
          {
            tool: tool.id,
            tier,
            changed: changedFields({ fields: trusted.fields ?? fingerprint.fields }, fingerprint),
          },
          'tool changed; the poisoning detector passed it, so it is served (trust tier: scan)',
        );
      }
      store.put({ id: tool.id, trusted: { ...fingerprint, at: this.now().toISOString() } });
      this.issues.delete(tool.id);
      return undefined;
    }
    const changed = trusted?.fields ? changedFields({ fields: trusted.fields }, fingerprint) : [];
    const reason = flagged ? 'flagged' : 'changed';
    if (record?.pending?.hash !== fingerprint.hash) {
      store.put({
        id: tool.id,
        ...(record?.trusted ? { trusted: record.trusted } : {}),
        pending: {
          ...fingerprint,
          at: this.now().toISOString(),
          changed,
          findings: flagged ? findings : [],
        },
      });
      this.counts[reason]++;
      this.options.log.warn(
        {
          tool: tool.id,
          reason,
          changed,
          findings: flagged ? findings : [],
          fingerprint: fingerprint.hash,
          ...(pin === undefined ? {} : { pinned: pin }),
        },
        hold
          ? `tool ${reason === 'flagged' ? 'looks poisoned' : 'changed since it was trusted'}; quarantined until approved (aperture trust approve ${tool.id})`
          : `tool ${reason === 'flagged' ? 'looks poisoned' : 'changed since it was trusted'}; served anyway (${tier === undefined ? 'trust.mode: warn' : `trust tier: ${tier}`})`,
      );
    }
    const issue: TrustIssue = {
      id: tool.id,
      sourceId: tool.origin.sourceId,
      reason,
      quarantined: hold,
      ...(tier === undefined ? {} : { tier }),
      changed,
      findings: flagged ? findings : [],
      fingerprint: fingerprint.hash,
    };
    this.issues.set(tool.id, issue);
    if (!hold) return undefined;
    return {
      reason,
      message: quarantineMessage(issue, pin !== undefined, trusted !== undefined),
      // What the caller (often a model) reads: which fields changed and which rules matched, never
      // the new text or the excerpts — they may be the very payload being held back. Operators
      // get the excerpts in the log, /readyz and `aperture trust list`.
      details: {
        reason,
        changed,
        ...(flagged
          ? {
              findings: findings.map(({ rule, field, version }) => ({
                rule,
                field,
                ...(version ? { version } : {}),
              })),
            }
          : {}),
        ...(tier === undefined ? {} : { tier }),
        fingerprint: fingerprint.hash,
        ...(trusted ? { trusted: trusted.hash } : {}),
      },
    };
  }

  /**
   * Approves the pending version of each id (ids as the source names its tools; `trust list`
   * shows them). The caller re-gates the catalog afterwards so approved tools come back.
   */
  approve(ids: readonly string[]): Record<string, ApproveOutcome> {
    const outcomes: Record<string, ApproveOutcome> = {};
    for (const id of ids) {
      outcomes[id] = this.options.store.approve(id, this.now());
      if (outcomes[id] === 'approved') {
        this.issues.delete(id);
        this.options.log.info({ tool: id }, 'tool approved');
      }
    }
    return outcomes;
  }

  settled(sourceId: string, checked: readonly CatalogEntry[]): void {
    const present = new Set(checked.map((entry) => entry.tool.id));
    for (const [id, issue] of this.issues) {
      if (issue.sourceId === sourceId && !present.has(id)) this.issues.delete(id);
    }
  }

  /** The tools judged untrusted during this run, by id. */
  issueList(): TrustIssue[] {
    return [...this.issues.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  counters(): TrustCounters {
    let quarantined = 0;
    for (const issue of this.issues.values()) if (issue.quarantined) quarantined++;
    return { ...this.counts, quarantined };
  }

  private findings(tool: Tool): PoisoningFinding[] {
    let found = this.findingsOf.get(tool);
    if (!found) {
      found = this.options.detect(tool);
      this.findingsOf.set(tool, found);
    }
    return found;
  }
}

/** What a caller reads in `tool_quarantined`: why, and how to let the tool back. */
function quarantineMessage(issue: TrustIssue, pinned: boolean, everTrusted: boolean): string {
  const why =
    issue.tier === 'manual' && !everTrusted && issue.reason === 'changed'
      ? 'its server is in the manual trust tier, where every new tool waits for approval'
      : issue.reason === 'flagged'
        ? `it looks poisoned (${issue.findings.map((f) => `${f.rule} in ${f.field}`).join(', ')})`
        : issue.changed.length > 0
          ? `its ${issue.changed.join(', ')} changed since it was ${pinned ? 'pinned' : 'approved'}`
          : `it differs from the fingerprint pinned in trust.pinned`;
  return `Tool "${issue.id}" is quarantined: ${why}; an operator can approve it with \`aperture trust approve ${issue.id}\``;
}
