import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool, ToolResult } from '../../foundation/model/tool.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { ActivityFeed } from './activity-feed.js';

const call = (id: string, args: Record<string, unknown>, surface?: string): RunCall =>
  ({
    tool: { id } as Tool,
    args,
    ctx: { caller: { identity: 'ops', sessionId: 's1', ...(surface ? { surface } : {}) } },
  }) as unknown as RunCall;
const ok = async (): Promise<ToolResult> => ({ content: [] });

describe('ActivityFeed', () => {
  it('records calls with redacted arguments, their outcome code and surface, and tells subscribers', async () => {
    const feed = new ActivityFeed();
    const seen: string[] = [];
    feed.subscribe((event) => seen.push(`${event.seq}:${event.tool}:${event.code}`));
    await feed.middleware(call('a:one', { token: 'secret-value', q: 'x' }, 'code'), ok);
    await expect(
      feed.middleware(call('a:two', {}), async () => {
        throw new GatewayError('timeout', 'slow');
      }),
    ).rejects.toThrow('slow');
    expect(seen).toEqual(['1:a:one:ok', '2:a:two:timeout']);
    const [first, second] = feed.recent();
    expect(first?.args).toEqual({ token: '[REDACTED]', q: 'x' });
    // The surface the caller's context names (a session does not make it `mcp`); `other` when none.
    expect(first?.surface).toBe('code');
    expect(second?.surface).toBe('other');
    expect(feed.recent(1).map((e) => e.tool)).toEqual(['a:two']);
  });

  it('keeps only the last `capacity` calls', async () => {
    const feed = new ActivityFeed({ capacity: 2 });
    for (const id of ['t:1', 't:2', 't:3']) await feed.middleware(call(id, {}), ok);
    expect(feed.recent().map((e) => e.tool)).toEqual(['t:2', 't:3']);
  });

  it('keeps the last calls in order however often the ring wraps, and resumes after a sequence number', async () => {
    const feed = new ActivityFeed({ capacity: 3 });
    for (let i = 1; i <= 11; i++) await feed.middleware(call(`t:${i}`, {}), ok);
    expect(feed.recent().map((e) => [e.seq, e.tool])).toEqual([
      [9, 't:9'],
      [10, 't:10'],
      [11, 't:11'],
    ]);
    expect(feed.recent(10).map((e) => e.tool)).toEqual(['t:11']);
    expect(feed.recent(3).map((e) => e.tool)).toEqual(['t:9', 't:10', 't:11']);
  });

  it('computes per-tool counts, errors and percentiles within the window only', async () => {
    let now = 0;
    const feed = new ActivityFeed({ now: () => now });
    await feed.middleware(call('t:old', {}), ok);
    now = 2 * 3_600_000;
    await feed.middleware(call('t:x', {}), ok);
    await expect(
      feed.middleware(call('t:x', {}), async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow();
    const stats = feed.stats();
    expect(stats.map((s) => s.tool)).toEqual(['t:x']);
    expect(stats[0]).toMatchObject({ calls: 2, errors: 1 });
  });

  it('a throwing subscriber does not keep the event from the others', async () => {
    const feed = new ActivityFeed();
    const seen: number[] = [];
    feed.subscribe(() => {
      throw new Error('closed stream');
    });
    feed.subscribe((event) => seen.push(event.seq));
    await feed.middleware(call('t:1', {}), ok);
    expect(seen).toEqual([1]);
  });

  it('buckets the last hour per minute: calls, errors and latency percentiles, empty minutes as zeros', async () => {
    let now = 10 * 60_000 + 5_000;
    const feed = new ActivityFeed({ now: () => now });
    await feed.middleware(call('t:a', {}), ok);
    await expect(
      feed.middleware(call('t:a', {}), async () => {
        throw new GatewayError('timeout', 'slow');
      }),
    ).rejects.toThrow();
    now += 2 * 60_000;
    await feed.middleware(call('t:b', {}), ok);
    const series = feed.series(5 * 60_000, 60_000);
    expect(series.map((b) => b.start)).toEqual([8, 9, 10, 11, 12].map((m) => m * 60_000));
    expect(series.map((b) => [b.calls, b.errors])).toEqual([
      [0, 0],
      [0, 0],
      [2, 1],
      [0, 0],
      [1, 0],
    ]);
    expect(feed.series(5 * 60_000, 60_000, 't:b').map((b) => b.calls)).toEqual([0, 0, 0, 0, 1]);
  });

  it('counts the whole hour when more calls passed than the ring keeps', async () => {
    let now = 30 * 60_000;
    const feed = new ActivityFeed({ capacity: 10, now: () => now });
    // 200 calls over 20 minutes, one in ten failing.
    for (let i = 0; i < 200; i++) {
      now = 30 * 60_000 + i * 6_000;
      const run = async (): Promise<ToolResult> => {
        if (i % 10 === 0) throw new GatewayError('timeout', 'slow');
        return { content: [] };
      };
      await feed.middleware(call(i % 2 === 0 ? 't:even' : 't:odd', {}), run).catch(() => {});
    }
    expect(feed.recent()).toHaveLength(10);
    const stats = Object.fromEntries(feed.stats().map((s) => [s.tool, s]));
    expect(stats['t:even']).toMatchObject({ calls: 100, errors: 20 });
    expect(stats['t:odd']).toMatchObject({ calls: 100, errors: 0 });
    const series = feed.series(60 * 60_000, 60_000);
    expect(series.reduce((sum, b) => sum + b.calls, 0)).toBe(200);
    expect(series.reduce((sum, b) => sum + b.errors, 0)).toBe(20);
    // Ten calls a minute while calls were made.
    expect(series.filter((b) => b.calls > 0).map((b) => b.calls)).toEqual(new Array(20).fill(10));
    expect(feed.series(60 * 60_000, 60_000, 't:odd').reduce((sum, b) => sum + b.calls, 0)).toBe(100);
  });

  it('attributes a call to the method and the name, so the feed tells apikey:ka from jwt:ka', async () => {
    const feed = new ActivityFeed();
    for (const authMethod of ['api_key', 'jwt'] as const) {
      const base = call('a:one', {});
      await feed.middleware({ ...base, ctx: { ...base.ctx, caller: { identity: 'ka', authMethod } } }, ok);
    }
    await feed.middleware(call('a:one', {}), ok);
    expect(feed.recent().map((event) => event.caller)).toEqual(['apikey:ka', 'jwt:ka', 'ops']);
  });

  it('passes the arguments through the secret masker after key-based redaction, as the call log does', async () => {
    const feed = new ActivityFeed({ mask: (text) => text.replaceAll('ghp_resolvedsecret', '[REDACTED]') });
    await feed.middleware(
      call('a:one', { query: 'use ghp_resolvedsecret here', nested: ['ghp_resolvedsecret'] }),
      ok,
    );
    expect(feed.recent()[0]?.args).toEqual({ query: 'use [REDACTED] here', nested: ['[REDACTED]'] });
  });
});
