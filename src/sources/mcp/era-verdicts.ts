import { createHash } from 'node:crypto';
import type { Client, PriorDiscovery } from '@modelcontextprotocol/client';

/**
 * What each remote server answered to era negotiation — its `server/discover` result (2026-07-28)
 * or "legacy" — per server and authorization context, so that the next connection to it (a
 * reconnect, a session's own link) adopts the verdict instead of probing again. A verdict is
 * forgotten when a connection made with it fails (the server is probed again at once), and after
 * `ttlMs` (a server may be upgraded behind the same URL).
 */
export class EraVerdicts {
  private readonly verdicts = new Map<string, { prior: PriorDiscovery; at: number }>();

  constructor(
    private readonly ttlMs = 5 * 60_000,
    private readonly maxEntries = 256,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The key of a server and the credentials it is reached with: the SDK's discover result may
   * only be reused within one authorization context. Hashed, so no credential is kept in clear.
   */
  static key(url: string, headers: Readonly<Record<string, string>>, oauth: boolean): string {
    const sorted = Object.entries(headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return createHash('sha256')
      .update(JSON.stringify([url, sorted, oauth]))
      .digest('hex');
  }

  get(key: string): PriorDiscovery | undefined {
    const entry = this.verdicts.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.ttlMs) {
      this.verdicts.delete(key);
      return undefined;
    }
    return entry.prior;
  }

  /** Keeps what the connected `client` negotiated. */
  remember(key: string, client: Pick<Client, 'getDiscoverResult'>): void {
    const discover = client.getDiscoverResult();
    this.verdicts.delete(key);
    this.verdicts.set(key, {
      prior: discover ? { kind: 'modern', discover } : { kind: 'legacy' },
      at: this.now(),
    });
    // Oldest first: a Map keeps insertion order.
    for (const oldest of this.verdicts.keys()) {
      if (this.verdicts.size <= this.maxEntries) break;
      this.verdicts.delete(oldest);
    }
  }

  forget(key: string): void {
    this.verdicts.delete(key);
  }
}

/** The process's verdicts: every downstream connection shares them. */
export const eraVerdicts = new EraVerdicts();
