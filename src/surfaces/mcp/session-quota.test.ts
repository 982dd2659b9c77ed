import { describe, expect, it } from 'vitest';
import { SessionQuota } from './session-quota.js';

describe('SessionQuota', () => {
  it('refuses the session past the bound with rate_limited and retryAfterMs, per owner', () => {
    const quota = new SessionQuota({ maxPerOwner: 2 });
    const first = quota.take('a');
    quota.take('a');
    expect(() => quota.take('a', () => 5_000)).toThrow(
      expect.objectContaining({
        code: 'rate_limited',
        details: { limit: 2, retryAfterMs: 5_000 },
        message: expect.stringContaining('http.maxSessionsPerIdentity'),
      }),
    );
    expect(() => quota.take('b')).not.toThrow();
    first();
    first();
    expect(quota.count('a')).toBe(1);
    expect(() => quota.take('a')).not.toThrow();
  });

  it('tells to wait at least a second', () => {
    const quota = new SessionQuota({ maxPerOwner: 1 });
    quota.take('a');
    expect(() => quota.take('a', () => 0)).toThrow(
      expect.objectContaining({ details: { limit: 1, retryAfterMs: 1000 } }),
    );
  });
});
