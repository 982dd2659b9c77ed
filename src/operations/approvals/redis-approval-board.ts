import type { Logger } from '../../foundation/ports/logger.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RedisConnection } from '../state/redis-connection.js';
import type { ApprovalBoard, BoardAnswer } from './approval-board.js';
import type { PendingApproval } from './pending-approval.js';

/**
 * The replicas' approval board in Redis: one hash (`<prefix>approvals`, id → the entry as JSON)
 * lists every held call, and answers travel on one channel (`<prefix>approvals:answers`) to the
 * replica holding the call, which settles it. A replica that stops without removing its entries
 * leaves them listed until their `expiresAt`, then they are dropped when listed.
 */
export class RedisApprovalBoard implements ApprovalBoard {
  private readonly key: string;
  private readonly channel: string;
  private onAnswer: ((answer: BoardAnswer) => void) | undefined;
  private stopWaiting: (() => void) | undefined;
  private readonly log: Logger;

  constructor(
    private readonly connection: RedisConnection,
    log: Logger = silentLogger,
  ) {
    this.key = `${connection.prefix}approvals`;
    this.channel = `${connection.prefix}approvals:answers`;
    this.log = log;
  }

  async post(entry: PendingApproval): Promise<void> {
    await this.connection.client.hset(this.key, entry.id, JSON.stringify(entry));
  }

  async remove(id: string): Promise<void> {
    await this.connection.client.hdel(this.key, id);
  }

  async list(): Promise<PendingApproval[]> {
    const all = await this.connection.client.hgetall(this.key);
    const now = Date.now();
    const live: PendingApproval[] = [];
    const expired: string[] = [];
    for (const [id, raw] of Object.entries(all)) {
      const entry = parse(raw);
      if (!entry || Date.parse(entry.expiresAt) < now) expired.push(id);
      else live.push(entry);
    }
    if (expired.length > 0) await this.connection.client.hdel(this.key, ...expired).catch(() => 0);
    return live.sort((a, b) => a.requestedAt.localeCompare(b.requestedAt));
  }

  async send(answer: BoardAnswer): Promise<PendingApproval | undefined> {
    const entry = parse((await this.connection.client.hget(this.key, answer.id)) ?? '');
    if (!entry || Date.parse(entry.expiresAt) < Date.now()) return undefined;
    await this.connection.client.publish(this.channel, JSON.stringify(answer));
    return entry;
  }

  async listen(onAnswer: (answer: BoardAnswer) => void): Promise<void> {
    this.onAnswer = onAnswer;
    this.connection.subscriber.on('message', this.onMessage);
    // Redis may be down at start (the gateway starts anyway): subscribe once it is up. ioredis
    // subscribes again by itself after a reconnect, once a subscription succeeded.
    const subscribe = () =>
      this.connection.subscriber.subscribe(this.channel).then(
        () => true,
        (error: unknown) => {
          this.log.warn(
            { err: (error as Error).message },
            'approvals: answers from other replicas not heard yet',
          );
          return false;
        },
      );
    // Not awaited: while Redis does not answer, the subscription may wait for it; start does not.
    void subscribe().then((done) => {
      if (done || this.onAnswer === undefined) return;
      const stop = this.connection.health.onChange((health) => {
        if (health.state !== 'up') return;
        void subscribe().then((subscribed) => {
          if (subscribed) stop();
        });
      });
      this.stopWaiting = stop;
    });
  }

  async close(): Promise<void> {
    this.stopWaiting?.();
    this.onAnswer = undefined;
    this.connection.subscriber.off('message', this.onMessage);
    // Not awaited: a subscriber that lost Redis may hold the command until it is back.
    void this.connection.subscriber.unsubscribe(this.channel).catch(() => {});
  }

  private readonly onMessage = (channel: string, raw: string): void => {
    if (channel !== this.channel || !this.onAnswer) return;
    try {
      const answer = JSON.parse(raw) as Partial<BoardAnswer>;
      if (
        typeof answer.id === 'string' &&
        (answer.decision === 'approve' || answer.decision === 'deny') &&
        typeof answer.by === 'string'
      ) {
        this.onAnswer({ id: answer.id, decision: answer.decision, by: answer.by });
      }
    } catch (error) {
      this.log.debug({ err: (error as Error).message }, 'approval answer not understood');
    }
  };
}

function parse(raw: string): PendingApproval | undefined {
  try {
    const entry = JSON.parse(raw) as PendingApproval;
    return typeof entry.id === 'string' && typeof entry.expiresAt === 'string' ? entry : undefined;
  } catch {
    return undefined;
  }
}
