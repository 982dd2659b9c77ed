import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { RunCall, RunMiddleware } from '../foundation/ports/run-middleware.js';
import { ActionGate, actionTool } from './action-gate.js';
import { PolicyEnforcement } from './policy/policy-enforcement.js';
import { PolicyEngine } from './policy/policy-engine.js';

const target = { namespace: 'docs', sourceId: 'mcp:docs' };
const caller = { identity: 'ka', surface: 'mcp' as const };

function recording(): { middleware: RunMiddleware; seen: RunCall[]; outcomes: string[] } {
  const seen: RunCall[] = [];
  const outcomes: string[] = [];
  const middleware: RunMiddleware = async (call, next) => {
    seen.push(call);
    try {
      const result = await next();
      outcomes.push('ok');
      return result;
    } catch (error) {
      outcomes.push(error instanceof GatewayError ? error.code : 'other');
      throw error;
    }
  };
  return { middleware, seen, outcomes };
}

describe('ActionGate', () => {
  it('runs an action through the middlewares as `<namespace>:<method>` and returns its own answer', async () => {
    const { middleware, seen, outcomes } = recording();
    const gate = new ActionGate({ middlewares: [middleware] });
    const answer = { contents: [{ uri: 'file:///a', text: 'x' }] };
    const args = { uri: 'aperture://docs/file:///a' };
    await expect(
      gate.run({ target, method: 'resources/read', args, caller }, async () => answer),
    ).resolves.toBe(answer);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.tool.id).toBe('docs:resources/read');
    expect(seen[0]?.tool.origin.sourceId).toBe('mcp:docs');
    expect(seen[0]?.args).toEqual(args);
    expect(seen[0]?.ctx.caller).toBe(caller);
    expect(outcomes).toEqual(['ok']);
  });

  it('refuses what the policies deny before any middleware or the relay runs (stage authorize)', async () => {
    const { middleware, seen } = recording();
    const policy = new PolicyEnforcement({
      engine: new PolicyEngine({
        rules: [
          {
            name: 'no-secret-prompt',
            effect: 'deny',
            tools: ['docs:prompts/get'],
            when: 'args.name == "secret"',
          },
        ],
      }),
    });
    const gate = new ActionGate({ middlewares: [middleware], policy });
    let relayed = 0;
    const relay = async () => {
      relayed++;
      return {};
    };
    const refused = await gate
      .run({ target, method: 'prompts/get', args: { name: 'secret', arguments: {} }, caller }, relay)
      .catch((error: GatewayError) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).code).toBe('forbidden');
    expect((refused as GatewayError).details?.stage).toBe('authorize');
    expect(seen).toHaveLength(0);
    expect(relayed).toBe(0);
    // Other prompts, and the server's reads, pass.
    await gate.run({ target, method: 'prompts/get', args: { name: 'open', arguments: {} }, caller }, relay);
    await gate.run({ target, method: 'resources/read', args: { uri: 'x' }, caller }, relay);
    expect(relayed).toBe(2);
  });

  it('refuses an action the policies deny for every argument', async () => {
    const policy = new PolicyEnforcement({
      engine: new PolicyEngine({ rules: [{ name: 'no-docs', effect: 'deny', tools: ['docs:*'] }] }),
    });
    const gate = new ActionGate({ middlewares: [], policy });
    await expect(
      gate.run({ target, method: 'resources/read', args: {}, caller }, async () => ({})),
    ).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('answers a middleware’s refusal (a rate limit) without relaying, stamped with its stage', async () => {
    const limit: RunMiddleware = async (call) => {
      throw new GatewayError('rate_limited', `Rate limit reached for ${call.tool.id}`);
    };
    const { middleware, outcomes } = recording();
    const gate = new ActionGate({ middlewares: [middleware, limit] });
    let relayed = 0;
    const refused = await gate
      .run({ target, method: 'resources/read', args: { uri: 'x' }, caller }, async () => {
        relayed++;
        return {};
      })
      .catch((error: GatewayError) => error);
    expect(refused).toMatchObject({
      code: 'rate_limited',
      message: 'Rate limit reached for docs:resources/read',
    });
    expect((refused as GatewayError).details?.stage).toBe('middlewares');
    expect(relayed).toBe(0);
    // The outer middleware (the activity feed's place) saw the refusal.
    expect(outcomes).toEqual(['rate_limited']);
  });

  it('passes the relayed request’s own failure on as it came, the middlewares seeing a failure', async () => {
    const { middleware, outcomes } = recording();
    const gate = new ActionGate({ middlewares: [middleware] });
    const own = Object.assign(new Error('Resource file:///nope not found'), { code: -32602 });
    const failure = await gate
      .run({ target, method: 'resources/read', args: { uri: 'file:///nope' }, caller }, async () => {
        throw own;
      })
      .catch((error: unknown) => error);
    expect(failure).toBe(own);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]).not.toBe('ok');
  });

  it('never lets a result cache keep an action, and counts it harmless', () => {
    const tool = actionTool(target, 'resources/read');
    expect(tool.metadata.extra?.cache).toBe(false);
    expect(tool.annotations.destructiveHint).toBe(false);
    expect(tool.annotations.readOnlyHint).toBeUndefined();
  });

  it('hides a skills/get the policies deny for its very arguments, only with hideDenied', () => {
    const rules = [
      { name: 'no-pdf', effect: 'deny' as const, tools: ['docs:skills/get'], when: 'args.name == "pdf"' },
    ];
    const gate = (hideDenied: boolean) =>
      new ActionGate({
        middlewares: [],
        policy: new PolicyEnforcement({ engine: new PolicyEngine({ rules, hideDenied }) }),
      });
    const action = (name: string, at = target) => ({
      target: at,
      method: 'skills/get' as const,
      args: { name },
      caller,
    });
    expect(gate(true).mayHide(caller)).toBe(true);
    expect(gate(true).hides(action('pdf'))).toBe(true);
    expect(gate(true).hides(action('csv'))).toBe(false);
    expect(gate(true).hides(action('pdf', { namespace: 'other', sourceId: 'mcp:other' }))).toBe(false);
    // Listed as it is, refused when asked for.
    expect(gate(false).mayHide(caller)).toBe(false);
    expect(gate(false).hides(action('pdf'))).toBe(false);
    // No policies: nothing is ever hidden, and nothing asked.
    expect(new ActionGate({ middlewares: [] }).mayHide(caller)).toBe(false);
    expect(new ActionGate({ middlewares: [] }).hides(action('pdf'))).toBe(false);
  });

  it('refuses a denied skills/get as forbidden, naming the rule, and runs another skill', async () => {
    const { middleware, seen } = recording();
    const policy = new PolicyEnforcement({
      engine: new PolicyEngine({
        rules: [{ name: 'no-pdf', effect: 'deny', tools: ['docs:skills/get'], when: 'args.name == "pdf"' }],
      }),
    });
    const gate = new ActionGate({ middlewares: [middleware], policy });
    await expect(
      gate.run({ target, method: 'skills/get', args: { name: 'pdf' }, caller }, async () => 'nope'),
    ).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('"no-pdf"') });
    await expect(
      gate.run({ target, method: 'skills/get', args: { name: 'csv' }, caller }, async () => 'csv'),
    ).resolves.toBe('csv');
    expect(seen.map((call) => [call.tool.id, call.args])).toEqual([['docs:skills/get', { name: 'csv' }]]);
  });

  it('shows the middlewares a server’s own JSON-RPC error as execution_failed (the server is up), a relay’s code as it is', async () => {
    const { middleware, outcomes } = recording();
    const gate = new ActionGate({ middlewares: [middleware] });
    const relay = (error: unknown) =>
      gate
        .run({ target, method: 'skills/get', args: { name: 'nope' }, caller }, async () => {
          throw error;
        })
        .catch((thrown: unknown) => thrown);
    const unknown = Object.assign(new Error('Resource not found: skill://nope/SKILL.md'), { code: -32602 });
    const down = Object.assign(new Error('docs is down'), {
      code: -32603,
      data: { code: 'backend_unavailable' },
    });
    // Each comes back to the client as it came.
    expect(await relay(unknown)).toBe(unknown);
    expect(await relay(down)).toBe(down);
    expect(await relay(new Error('socket hang up'))).toBeInstanceOf(Error);
    // A breaker counts `internal`, `timeout` and `backend_unavailable` only: an unknown skill is not one.
    expect(outcomes).toEqual(['execution_failed', 'backend_unavailable', 'internal']);
  });
});
