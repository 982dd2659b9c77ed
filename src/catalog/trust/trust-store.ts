import type { StateStore, StateValue } from '../../foundation/ports/state-store.js';
import { isRecord } from '../../foundation/util/is-record.js';
import type { PoisoningFinding } from './poisoning-detector.js';
import type { FingerprintField, ToolFingerprint } from './tool-fingerprint.js';

/** The state store scope of trust records. */
export const TRUST_SCOPE = 'trust';

/** A fingerprint as a record keeps it. */
export interface RecordedFingerprint extends ToolFingerprint {
  /** ISO time it was recorded. */
  at: string;
}

/** A version of a tool waiting for approval: changed since it was trusted, or flagged on arrival. */
export interface PendingVersion extends RecordedFingerprint {
  /** The fields that differ from the trusted version (empty for a tool never trusted). */
  changed: FingerprintField[];
  /** What the poisoning detector found in this version (empty: nothing). */
  findings: PoisoningFinding[];
}

/** What the gateway knows of one downstream tool it has seen (keyed by the source's tool id). */
export interface TrustRecord {
  id: string;
  /** The version approved: the one seen first when it was clean, or one approved since. */
  trusted?: RecordedFingerprint;
  /** A version seen since that is not the trusted one. */
  pending?: PendingVersion;
}

/** What `approve` did for one id. */
export type ApproveOutcome = 'approved' | 'nothing_pending' | 'unknown';

/**
 * Trust records in the state store: durable (a restart keeps what was approved), and shared with
 * the CLI, which approves through the same store while a gateway runs. Every read goes to the
 * store rather than a copy, so an approval written by another process is seen at once.
 */
export class TrustStore {
  constructor(private readonly store: StateStore) {}

  /** The record of a tool, or undefined when it was never seen. A damaged record reads as unseen. */
  get(id: string): TrustRecord | undefined {
    return asRecord(id, this.store.get(TRUST_SCOPE, id));
  }

  put(record: TrustRecord): void {
    this.store.set(TRUST_SCOPE, record.id, record as unknown as StateValue);
  }

  /** Every record, by id. */
  list(): TrustRecord[] {
    return this.store
      .entries(TRUST_SCOPE)
      .map(([id, value]) => asRecord(id, value))
      .filter((record): record is TrustRecord => record !== undefined);
  }

  /** Records with a version waiting for approval. */
  pending(): TrustRecord[] {
    return this.list().filter((record) => record.pending !== undefined);
  }

  /**
   * Trusts the pending version of `id`. `expected`, when given, must be that version's hash: an
   * approval names what was reviewed, so a version that changed again meanwhile stays pending.
   */
  approve(id: string, at: Date, expected?: string): ApproveOutcome {
    const record = this.get(id);
    if (!record) return 'unknown';
    const pending = record.pending;
    if (!pending || (expected !== undefined && pending.hash !== expected)) return 'nothing_pending';
    this.put({ id, trusted: { hash: pending.hash, fields: pending.fields, at: at.toISOString() } });
    return 'approved';
  }
}

/** A stored value as a record, or undefined when it is not one (an older or damaged value). */
function asRecord(id: string, value: StateValue | undefined): TrustRecord | undefined {
  if (!isRecord(value)) return undefined;
  const trusted = isFingerprint(value.trusted) ? value.trusted : undefined;
  const pending = isFingerprint(value.pending) ? value.pending : undefined;
  if (!trusted && !pending) return undefined;
  return {
    id,
    ...(trusted ? { trusted: trusted as unknown as RecordedFingerprint } : {}),
    ...(pending
      ? {
          pending: {
            ...(pending as unknown as PendingVersion),
            changed: Array.isArray(pending.changed) ? (pending.changed as FingerprintField[]) : [],
            findings: Array.isArray(pending.findings)
              ? (pending.findings as unknown as PoisoningFinding[])
              : [],
          },
        }
      : {}),
  };
}

function isFingerprint(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && typeof value.hash === 'string' && isRecord(value.fields);
}
