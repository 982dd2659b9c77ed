import { describe, expect, it } from 'vitest';
import { makeTool } from '../../test/support/test-tools.js';
import { configSchema } from '../config/config-schema.js';
import { parseConfigValue } from '../config/load-config.js';
import type { ToolResult } from '../foundation/model/tool.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { RunCall } from '../foundation/ports/run-middleware.js';
import type { ExecutionContext } from '../foundation/ports/tool-backend.js';
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

function oauthConfig(perUser: boolean) {
  return configSchema.parse({
    auth: {
      apiKeys: [
        { name: 'alice', key: 'a'.repeat(32) },
        { name: 'bob', key: 'b'.repeat(32) },
      ],
    },
    cache: { partition: 'scope' },
    servers: { team: { url: 'http://127.0.0.1:9/mcp', oauth: { perUser } } },
    state: { tokenKey: 'k'.repeat(32) },
  });
}

async function callAs(policies: ReturnType<typeof callPolicies>, identity: string): Promise<ToolResult> {
  const tool = makeTool('team:whoami', { annotations: { readOnlyHint: true } });
  const ctx = {
    caller: { identity, authMethod: 'api_key' },
    signal: new AbortController().signal,
  } as ExecutionContext;
  const [middleware] = policies.middlewares;
  if (!middleware) throw new Error('no cache middleware');
  return middleware({ tool, args: {}, ctx }, async () => ({ content: [{ type: 'text', text: identity }] }));
}

describe('callPolicies with a per-user OAuth server', () => {
  it('never serves one user’s cached result to another when a server keeps tokens per user', async () => {
    const policies = callPolicies(oauthConfig(true), log);
    await callAs(policies, 'alice');
    expect((await callAs(policies, 'bob')).content).toEqual([{ type: 'text', text: 'bob' }]);
  });

  it('keeps the configured scope partition otherwise', async () => {
    const policies = callPolicies(oauthConfig(false), log);
    await callAs(policies, 'alice');
    expect((await callAs(policies, 'bob')).content).toEqual([{ type: 'text', text: 'alice' }]);
  });

  it('does not keep a shared cache over a reload that makes a server per-user', async () => {
    const shared = callPolicies(oauthConfig(false), log);
    await callAs(shared, 'alice');
    const reloaded = reloadedPolicies(shared, oauthConfig(true), ['servers'], log);
    expect(reloaded.cache).not.toBe(shared.cache);
    expect((await callAs(reloaded, 'bob')).content).toEqual([{ type: 'text', text: 'bob' }]);
    // Nothing about the servers' tokens changed: the cache and its entries stay.
    expect(reloadedPolicies(reloaded, oauthConfig(true), ['servers'], log).cache).toBe(reloaded.cache);
  });
});
