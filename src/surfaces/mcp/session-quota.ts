import type { Context } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { jsonRpcErrorResponse } from '../http/http-error.js';

/** Options of {@link SessionQuota}. */
export interface SessionQuotaOptions {
  /** Sessions one owner may hold at once (`http.maxSessionsPerIdentity`). */
  maxPerOwner: number;
}

/**
 * Bounds the MCP sessions each owner (`sessionOwner`: the identity, or anonymous) holds. A session
 * is counted from the moment its server is made until it is released, so a burst of `initialize`
 * requests cannot slip past the count while the first are still being set up. Past the bound a new
 * session is refused with `rate_limited`; the owner's open sessions are never closed to make room
 * (an agent's session would vanish under it, silently).
 */
export class SessionQuota {
  private readonly held = new Map<string, number>();

  constructor(private readonly options: SessionQuotaOptions) {
    if (!Number.isInteger(options.maxPerOwner) || options.maxPerOwner < 1) {
      throw new GatewayError('config_invalid', 'maxPerOwner must be a positive integer');
    }
  }

  /**
   * Counts one session of `owner` and returns the function that releases it (idempotent).
   * `retryAfterMs` says, when asked, how long until one of the owner's sessions may free up.
   * @throws GatewayError `rate_limited` when `owner` holds `maxPerOwner` sessions already.
   */
  take(owner: string, retryAfterMs: () => number = () => 60_000): () => void {
    const count = this.held.get(owner) ?? 0;
    if (count >= this.options.maxPerOwner) {
      const wait = Math.max(1000, Math.ceil(retryAfterMs()));
      throw new GatewayError(
        'rate_limited',
        `Too many open MCP sessions for this identity (${this.options.maxPerOwner}, http.maxSessionsPerIdentity): close one (DELETE /mcp) or reuse it`,
        { details: { limit: this.options.maxPerOwner, retryAfterMs: wait } },
      );
    }
    this.held.set(owner, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(owner) ?? 1) - 1;
      if (left > 0) this.held.set(owner, left);
      else this.held.delete(owner);
    };
  }

  /** Sessions `owner` holds now. */
  count(owner: string): number {
    return this.held.get(owner) ?? 0;
  }
}

/** The 429 answer to a session opened past the identity's session bound, with `Retry-After`. */
export function refusedSession(c: Context, error: GatewayError, log: Logger): Response {
  const retryAfterMs = error.details?.retryAfterMs;
  if (typeof retryAfterMs === 'number') c.header('Retry-After', String(Math.ceil(retryAfterMs / 1000)));
  log.warn({ limit: error.details?.limit }, 'mcp session refused: the identity holds too many sessions');
  return jsonRpcErrorResponse(c, error);
}
