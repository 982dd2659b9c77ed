import type { AuditEvent } from '../../foundation/ports/audit-trail.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import type { RedisConnection } from '../state/redis-connection.js';
import { RedisScript } from '../state/redis-script.js';
import { AuditChainChecker, type AuditVerdict } from './audit-chain.js';
import {
  type AuditLine,
  formatAuditLine,
  GENESIS_HASH,
  lineHash,
  parseAuditLine,
  type ReadableAuditTrail,
} from './audit-line.js';

/**
 * Appends a line only if the trail's head is still the one the line was chained to: KEYS[1] the
 * list of lines, KEYS[2] the head (`<seq> <hash>` of the last line); ARGV[1] the head the caller
 * chained to (`''` for an empty trail), ARGV[2] the line, ARGV[3] the new head. Answers 1 when
 * appended, else the current head, which the caller chains to and tries again. Redis's Lua has no
 * SHA-256, so the writer hashes; the script makes "read the head, append, move the head" one
 * atomic step across every replica, so the chain never forks.
 */
const APPEND = new RedisScript(`
local head = redis.call('GET', KEYS[2]) or ''
if head ~= ARGV[1] then return head end
redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3])
return 1
`);

/** Options of {@link RedisAuditTrail}. */
export interface RedisAuditTrailOptions {
  /** The gateway's Redis connection (`state.driver: redis`); keys go under its prefix. */
  connection: RedisConnection;
  log?: Logger | undefined;
  /** The clock of the lines' `time` (tests). */
  now?: (() => Date) | undefined;
}

/** How many times one line is chained again after other replicas appended first. */
const MAX_ATTEMPTS = 20;

/**
 * The audit trail of replicas sharing Redis: one list (`<prefix>audit`) every replica appends to,
 * and its head (`<prefix>audit:head`), moved together by one Lua script, so the lines of every
 * replica form one chain. Each replica remembers the head it last saw: appending costs one round
 * trip, and one more each time another replica appended in between. While Redis is down a line is
 * logged as lost (the call it records is not failed).
 */
export class RedisAuditTrail implements ReadableAuditTrail {
  private queue: Promise<void> = Promise.resolve();
  /** The head last seen, `''` for an empty trail; undefined until read. */
  private head: string | undefined;
  private readonly log: Logger;
  private readonly now: () => Date;
  private readonly keys: readonly [string, string];

  constructor(private readonly options: RedisAuditTrailOptions) {
    this.log = options.log ?? silentLogger;
    this.now = options.now ?? (() => new Date());
    const { prefix } = options.connection;
    this.keys = [`${prefix}audit`, `${prefix}audit:head`];
  }

  record(event: AuditEvent): Promise<void> {
    const next = this.queue.then(() => this.append(event));
    this.queue = next.catch((error: unknown) => {
      this.head = undefined;
      this.log.error({ err: error, kind: event.kind }, 'audit line not written');
    });
    return this.queue;
  }

  private async append(event: AuditEvent): Promise<void> {
    const client = this.options.connection.client;
    let head = this.head ?? ((await client.get(this.keys[1])) || '');
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const [seqText, hash] = head === '' ? ['0', GENESIS_HASH] : head.split(' ');
      const seq = Number(seqText) + 1;
      const text = formatAuditLine(event, seq, hash ?? GENESIS_HASH, this.now());
      const next = `${seq} ${lineHash(text)}`;
      const answer = await APPEND.run(client, this.keys, [head, text, next]);
      if (answer === 1) {
        this.head = next;
        return;
      }
      head = String(answer);
    }
    throw new Error(`the audit head kept moving: ${MAX_ATTEMPTS} attempts`);
  }

  async recent(limit: number): Promise<AuditLine[]> {
    await this.queue;
    if (limit <= 0) return [];
    const texts = await this.options.connection.client.lrange(this.keys[0], -limit, -1);
    return texts.map((text) => parseAuditLine(text)).filter((line): line is AuditLine => line !== undefined);
  }

  /**
   * Checks the whole chain in Redis, read in pages: the lines up to the head read first (replicas
   * may append meanwhile), the last of them against that head.
   */
  async verify(pageSize = 1000): Promise<AuditVerdict> {
    const client = this.options.connection.client;
    const checker = new AuditChainChecker();
    const head = (await client.get(this.keys[1])) || '';
    const [countText, hash] = head === '' ? ['0', undefined] : head.split(' ');
    const count = Number(countText);
    for (let start = 0; start < count; start += pageSize) {
      const page = await client.lrange(this.keys[0], start, Math.min(start + pageSize, count) - 1);
      for (const text of page) checker.push(text);
      if (page.length === 0) break;
    }
    return checker.finish(hash);
  }

  async close(): Promise<void> {
    await this.queue;
  }
}
