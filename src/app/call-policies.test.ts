import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import { parseConfigValue } from '../config/load-config.js';
import type { Logger } from '../foundation/logger.js';
import type { RunCall } from '../foundation/run-middleware.js';
import type { ToolResult } from '../foundation/tool.js';
import { type CallPolicies, callPolicies, reloadedPolicies, swappableMiddlewares } from './call-policies.js';

const log = {
  child: () => log,
  debug() {},
  info() {},
  warn() {},
  error() {},
} as unknown as Logger;
const config = (raw: Record<string, unknown>) => parseConfigValue(raw).config;
const OK: ToolResult = { content: [{ type: 'text', text: 'ok' }] };
const call = (): RunCall => ({
  tool: makeTool('t:read', { annotations: { readOnlyHint: true } }),
  args: {},
  ctx: { caller: { identity: 'someone' } } as RunCall['ctx'],
});

describe('swappableMiddlewares and reloadedPolicies (a config reload)', () => {
  it('puts new rate limits in force on the next call, through the same pipeline slot', async () => {
    let policies: CallPolicies = callPolicies(config({}), log);
    const slot = swappableMiddlewares(() => policies.middlewares);
    const run = () => slot(call(), async () => OK);
    for (let i = 0; i < 3; i++) await expect(run()).resolves.toBe(OK);

    policies = reloadedPolicies(
      policies,
      config({ rateLimits: [{ tool: 't:*', perMinute: 1, burst: 1 }] }),
      ['rateLimits'],
      log,
    );
    await expect(run()).resolves.toBe(OK);
    await expect(run()).rejects.toMatchObject({ code: 'rate_limited' });

    policies = reloadedPolicies(policies, config({}), ['rateLimits'], log);
    await expect(run()).resolves.toBe(OK);
  });

  it('keeps the parts whose section did not change, with their state', () => {
    const before = callPolicies(
      config({ cache: { ttlMs: 60000 }, rateLimits: [{ tool: '*', perMinute: 5 }] }),
      log,
    );
    const after = reloadedPolicies(
      before,
      config({ cache: { ttlMs: 60000 }, rateLimits: [{ tool: '*', perMinute: 10 }] }),
      ['rateLimits'],
      log,
    );
    expect(after.cache).toBeDefined();
    expect(after.cache).toBe(before.cache);
    expect(after.rateLimits).not.toBe(before.rateLimits);
    const off = reloadedPolicies(
      after,
      config({ rateLimits: [{ tool: '*', perMinute: 10 }] }),
      ['cache'],
      log,
    );
    expect(off.cache).toBeUndefined();
    expect(off.rateLimits).toBe(after.rateLimits);
  });

  it('runs the swapped-in middlewares in order around the call, each once', async () => {
    const seen: string[] = [];
    const mark =
      (name: string) =>
      async (_call: RunCall, next: () => Promise<ToolResult>): Promise<ToolResult> => {
        seen.push(`${name}>`);
        const result = await next();
        seen.push(`<${name}`);
        return result;
      };
    const slot = swappableMiddlewares(() => [mark('a'), mark('b')]);
    await slot(call(), async () => {
      seen.push('call');
      return OK;
    });
    expect(seen).toEqual(['a>', 'b>', 'call', '<b', '<a']);
  });
});
