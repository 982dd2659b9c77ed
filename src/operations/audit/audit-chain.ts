import { GENESIS_HASH, lineHash, parseAuditLine } from './audit-line.js';

/** What checking a trail found: every line chained, or the first line that breaks the chain. */
export type AuditVerdict =
  | {
      ok: true /** Lines checked. */;
      lines: number /** The hash of the last line (the head). */;
      head: string;
    }
  | { ok: false /** The first broken line, 1-based. */; line: number; reason: string; lines: number };

/** A line read, and what it claims of its predecessor. */
interface Seen {
  number: number;
  hash: string;
  /** The `prev` the line records, undefined when the line is not an audit line at all. */
  prev: string | undefined;
  seq: number | undefined;
}

/**
 * Checks an audit trail line by line (fed in order, so a file is streamed, never held whole).
 *
 * Each line records the SHA-256 of the line before it, so a changed line shows at the NEXT line,
 * whose record no longer matches. To name the line that was changed rather than its innocent
 * successor, a mismatch between lines k and k+1 is settled by line k+2: when k+1 still chains to
 * k+2, line k+1 is intact and line k was changed; when it does not, line k+1 itself was (its `prev`
 * edited). A changed last line has no successor to give it away: the trail's head (Redis keeps
 * it) or a copy of the last hash is what protects it.
 */
export class AuditChainChecker {
  private count = 0;
  private last: Seen | undefined;
  /** A broken link waiting for the next line to say which of its two lines was changed. */
  private suspect: { earlier: Seen; later: Seen } | undefined;
  private broken: { line: number; reason: string } | undefined;

  /** Checks the next line (its text without the newline). */
  push(text: string): void {
    this.count++;
    if (this.broken) return;
    const number = this.count;
    const parsed = parseAuditLine(text);
    const seen: Seen = { number, hash: lineHash(text), prev: parsed?.prev, seq: parsed?.seq };
    if (this.suspect) {
      const { earlier, later } = this.suspect;
      this.broken =
        seen.prev === later.hash
          ? {
              line: earlier.number,
              reason: `line ${earlier.number} was changed: its hash is not the one line ${later.number} records`,
            }
          : {
              line: later.number,
              reason: `line ${later.number} was changed: it does not chain to line ${earlier.number} nor to line ${number}`,
            };
      return;
    }
    if (!parsed) {
      this.broken = {
        line: number,
        reason: `line ${number} is not an audit line (JSON with seq, time, prev, kind, actor)`,
      };
      return;
    }
    const previous = this.last;
    if (!previous) {
      if (parsed.prev !== GENESIS_HASH) {
        this.broken = {
          line: number,
          reason: `line ${number} does not start a chain: its prev is not ${GENESIS_HASH.slice(0, 8)}…`,
        };
      }
    } else if (previous.seq !== undefined && parsed.seq !== previous.seq + 1) {
      this.broken = { line: number, reason: `line ${number} has seq ${parsed.seq} after ${previous.seq}` };
    } else if (parsed.prev !== previous.hash) {
      this.suspect = { earlier: previous, later: seen };
    }
    this.last = seen;
  }

  /** The verdict once every line was pushed; `head`, when known, is the hash the last line must have. */
  finish(head?: string): AuditVerdict {
    if (!this.broken && this.suspect) {
      // No line after the broken link: the earlier line is the likelier change (its content is
      // what a tamperer edits; editing the last line's prev alone gains nothing).
      const { earlier, later } = this.suspect;
      this.broken = {
        line: earlier.number,
        reason: `line ${earlier.number} was changed: its hash is not the one line ${later.number} records`,
      };
    }
    if (!this.broken && head !== undefined && this.last && this.last.hash !== head) {
      this.broken = {
        line: this.last.number,
        reason: `line ${this.last.number} was changed: its hash is not the trail's head`,
      };
    }
    if (this.broken) return { ok: false, ...this.broken, lines: this.count };
    return { ok: true, lines: this.count, head: this.last?.hash ?? GENESIS_HASH };
  }
}

/** Checks the lines of a trail held in memory (see {@link AuditChainChecker}). */
export function verifyAuditLines(lines: Iterable<string>, head?: string): AuditVerdict {
  const checker = new AuditChainChecker();
  for (const line of lines) checker.push(line);
  return checker.finish(head);
}
