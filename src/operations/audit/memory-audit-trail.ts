import type { AuditEvent } from '../../foundation/ports/audit-trail.js';
import {
  type AuditLine,
  formatAuditLine,
  GENESIS_HASH,
  lineHash,
  parseAuditLine,
  type ReadableAuditTrail,
} from './audit-line.js';

/**
 * The reference audit trail: lines in an array (tests, and a gateway that keeps no state). Every
 * trail over the same array continues one chain, as replicas over one Redis do.
 */
export class MemoryAuditTrail implements ReadableAuditTrail {
  constructor(
    /** The lines' texts, shared by every trail made over it. */
    readonly lines: string[] = [],
    private readonly now: () => Date = () => new Date(),
  ) {}

  async record(event: AuditEvent): Promise<void> {
    const last = this.lines.at(-1);
    const seq = (last === undefined ? 0 : (parseAuditLine(last)?.seq ?? this.lines.length)) + 1;
    this.lines.push(
      formatAuditLine(event, seq, last === undefined ? GENESIS_HASH : lineHash(last), this.now()),
    );
  }

  async recent(limit: number): Promise<AuditLine[]> {
    if (limit <= 0) return [];
    return this.lines
      .slice(-limit)
      .map((text) => parseAuditLine(text))
      .filter((line): line is AuditLine => line !== undefined);
  }

  async close(): Promise<void> {}
}
