import { createReadStream, writeSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { AuditEvent } from '../../foundation/ports/audit-trail.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import { AuditChainChecker, type AuditVerdict } from './audit-chain.js';
import {
  type AuditLine,
  formatAuditLine,
  GENESIS_HASH,
  lineHash,
  parseAuditLine,
  type ReadableAuditTrail,
} from './audit-line.js';
import { tailLines } from './tail-lines.js';

/** Options of {@link FileAuditTrail.open}. */
export interface FileAuditTrailOptions {
  /** The JSON Lines file; created with its directory when missing, appended to when present. */
  path: string;
  log?: Logger | undefined;
  /** The clock of the lines' `time` (tests). */
  now?: (() => Date) | undefined;
}

type Handle = Awaited<ReturnType<typeof open>>;

/**
 * The audit trail in a JSON Lines file (`audit.path`, by default `audit.jsonl` in the state
 * directory): one line per event, each carrying the SHA-256 of the line before it. Writes are
 * queued, so lines keep the order `record` was called in and the chain never forks within one
 * gateway; one file belongs to one gateway (replicas share a Redis trail instead). Lines are
 * written without an fsync each: a crash may lose the last lines, never reorder or corrupt
 * earlier ones (a line cut short breaks the chain visibly there).
 */
export class FileAuditTrail implements ReadableAuditTrail {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: Handle,
    private head: { seq: number; hash: string },
    private readonly log: Logger,
    private readonly now: () => Date,
  ) {}

  /** Opens (or creates) the file and reads its last line, which the next one will chain to. */
  static async open(options: FileAuditTrailOptions): Promise<FileAuditTrail> {
    await mkdir(dirname(options.path), { recursive: true });
    const [last] = await tailLines(options.path, 1);
    const handle = await open(options.path, 'a', 0o600);
    const { size } = await handle.stat();
    const head =
      last === undefined
        ? { seq: 0, hash: GENESIS_HASH }
        : { seq: parseAuditLine(last)?.seq ?? 0, hash: lineHash(last) };
    const trail = new FileAuditTrail(
      options.path,
      handle,
      head,
      options.log ?? silentLogger,
      options.now ?? (() => new Date()),
    );
    // A last line cut short by a crash: end it, so that the next line starts a line of its own.
    if (last !== undefined && size > 0) {
      const tail = Buffer.alloc(1);
      const probe = await open(options.path, 'r');
      try {
        await probe.read(tail, 0, 1, size - 1);
      } finally {
        await probe.close();
      }
      if (tail[0] !== 10) await handle.write('\n');
    }
    return trail;
  }

  record(event: AuditEvent): Promise<void> {
    const next = this.queue.then(async () => {
      if (this.closed) throw new Error('the audit trail is closed');
      const text = formatAuditLine(event, this.head.seq + 1, this.head.hash, this.now());
      // A synchronous write: a line is a few hundred bytes into the page cache, about 5 µs here,
      // while an awaited asynchronous write (a round trip through libuv's thread pool) measured
      // 55-70 µs per line on the same machine (docs/PERFORMANCE.md, "Audit trail").
      writeSync(this.handle.fd, `${text}\n`);
      this.head = { seq: this.head.seq + 1, hash: lineHash(text) };
    });
    // A failed write is logged, never thrown at the call that recorded it; the queue goes on.
    this.queue = next.catch((error: unknown) => {
      this.log.error({ err: error, kind: event.kind, path: this.path }, 'audit line not written');
    });
    return this.queue;
  }

  async recent(limit: number): Promise<AuditLine[]> {
    await this.queue;
    return (await tailLines(this.path, limit))
      .map((text) => parseAuditLine(text))
      .filter((line): line is AuditLine => line !== undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.queue;
    this.closed = true;
    await this.handle.close();
  }
}

/**
 * Checks the chain of an audit file, streamed line by line (`aperture audit verify FILE`). A
 * missing file is an error (ENOENT) rather than an empty, valid trail.
 */
export async function verifyAuditFile(path: string): Promise<AuditVerdict> {
  const checker = new AuditChainChecker();
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) checker.push(line);
  return checker.finish();
}
