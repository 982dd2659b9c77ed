import { describe, expect, it, vi } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ApprovalGate } from '../../foundation/ports/approval-gate.js';
import type { AuditEvent } from '../../foundation/ports/audit-trail.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { PolicyEnforcement } from './policy-enforcement.js';
import { PolicyEngine } from './policy-engine.js';

const tool = makeTool('demo:repo_write');
const caller = { identity: 'alice', authMethod: 'api_key' as const };
const context = (): ExecutionContext => ({
  signal: new AbortController().signal,
  callId: 'c1',
  caller,
  progress: () => {},
  log: silentLogger,
});
const call = (args: Record<string, unknown> = {}) => ({ tool, args, caller, surface: 'rest' as const });

function enforcement(rules: ConstructorParameters<typeof PolicyEngine>[0]) {
  const events: AuditEvent[] = [];
  const warn = vi.fn();
  const made = new PolicyEnforcement({
    engine: new PolicyEngine(rules),
    log: { ...silentLogger, warn, child: () => silentLogger } as never,
  });
  made.trail = { record: async (event) => void events.push(event) };
  return { made, events, warn };
}

describe('PolicyEnforcement', () => {
  it('lets an allowed call through without a promise', () => {
    const { made } = enforcement({ rules: [{ name: 'ok', effect: 'allow' }] });
    expect(made.authorize(call(), context)).toBeUndefined();
  });

  it('refuses a denied call as forbidden naming the rule, and records it in the audit trail', () => {
    const { made, events } = enforcement({ rules: [{ name: 'no', effect: 'deny', reason: 'not today' }] });
    expect(() => made.authorize(call(), context)).toThrow(
      expect.objectContaining({ code: 'forbidden', message: 'Denied by policy "no": not today' }),
    );
    expect(events).toEqual([
      {
        kind: 'policy.deny',
        decision: 'deny',
        rule: 'no',
        actor: 'apikey:alice',
        tool: 'demo:repo_write',
        surface: 'rest',
      },
    ]);
  });

  it('logs a rule that fails at run time, and denies', () => {
    const { made, warn } = enforcement({
      rules: [{ name: 'broken', effect: 'allow', when: 'args.missing == 1' }],
    });
    expect(() => made.authorize(call(), context)).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ rule: 'broken', error: expect.any(String) }),
      expect.any(String),
    );
  });

  it('fails an approve decision closed when no gate is configured: the call never runs', async () => {
    const { made, events } = enforcement({ rules: [{ name: 'ask', effect: 'approve' }] });
    await expect(made.authorize(call(), context)).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('approvals are not configured'),
    });
    expect(events[0]).toMatchObject({ kind: 'policy.deny', rule: 'ask' });
  });

  it('hands an approve decision to the gate, and passes its refusal on', async () => {
    const { made, events } = enforcement({ rules: [{ name: 'ask', effect: 'approve', reason: 'risky' }] });
    const approve = vi.fn<ApprovalGate['approve']>(async () => {});
    made.gate = { approve };
    await made.authorize(call({ repo: 'x' }), context);
    expect(approve).toHaveBeenCalledWith(
      {
        toolId: 'demo:repo_write',
        caller,
        surface: 'rest',
        args: { repo: 'x' },
        rule: 'ask',
        reason: 'risky',
      },
      expect.objectContaining({ callId: 'c1' }),
    );
    // The gate records the request itself: the enforcement adds no second line for it.
    expect(events.filter((event) => event.kind === 'approval.request')).toEqual([]);
    approve.mockRejectedValueOnce(new GatewayError('forbidden', 'declined'));
    await expect(made.authorize(call(), context)).rejects.toMatchObject({ message: 'declined' });
  });

  it('follows the engine a reload swaps in', () => {
    const { made } = enforcement({});
    expect(made.authorize(call(), context)).toBeUndefined();
    made.engine = new PolicyEngine({ rules: [{ name: 'no', effect: 'deny' }] });
    expect(() => made.authorize(call(), context)).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(made.hides(tool, caller)).toBe(true);
  });
});
