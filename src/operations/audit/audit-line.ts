import { createHash } from 'node:crypto';
import type { AuditEvent, AuditTrail } from '../../foundation/ports/audit-trail.js';

/** What the first line of a trail records as the hash of the line before it: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** One line of the audit trail as written: the event, its place in the chain and its time. */
export interface AuditLine extends AuditEvent {
  /** 1 for the first line of the trail, then one more per line. */
  seq: number;
  /** When it was recorded (ISO 8601, UTC). */
  time: string;
  /** The SHA-256 (hex) of the previous line's text, {@link GENESIS_HASH} for the first. */
  prev: string;
}

/** An audit trail that can also be read back (the console, `aperture audit tail`). */
export interface ReadableAuditTrail extends AuditTrail {
  /** The last `limit` lines, oldest first. */
  recent(limit: number): Promise<AuditLine[]>;
  /** Waits for the lines being written, then releases what the trail holds. */
  close(): Promise<void>;
}

/** The SHA-256 (hex) of one line's text, without its newline: what the next line records. */
export function lineHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The text of one line. The chain fields come first and the event's fields in a fixed order, so
 * that a line reads the same whoever wrote it; fields the event lacks are left out.
 */
export function formatAuditLine(event: AuditEvent, seq: number, prev: string, time: Date): string {
  const line: AuditLine = {
    seq,
    time: time.toISOString(),
    prev,
    kind: event.kind,
    actor: event.actor,
    ...(event.tool === undefined ? {} : { tool: event.tool }),
    ...(event.surface === undefined ? {} : { surface: event.surface }),
    ...(event.decision === undefined ? {} : { decision: event.decision }),
    ...(event.rule === undefined ? {} : { rule: event.rule }),
    ...(event.details === undefined ? {} : { details: event.details }),
  };
  return JSON.stringify(line);
}

/** `text` as an audit line, or undefined when it is not one (not JSON, a chain field missing). */
export function parseAuditLine(text: string): AuditLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const line = value as Partial<AuditLine>;
  if (
    !Number.isSafeInteger(line.seq) ||
    typeof line.time !== 'string' ||
    typeof line.prev !== 'string' ||
    !/^[0-9a-f]{64}$/.test(line.prev) ||
    typeof line.kind !== 'string' ||
    typeof line.actor !== 'string'
  ) {
    return undefined;
  }
  return line as AuditLine;
}
