import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import type { ApprovalGate } from '../../foundation/ports/approval-gate.js';
import type { AuditEvent, AuditTrail } from '../../foundation/ports/audit-trail.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import { type CallerContext, callerKey, type ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { PolicyEngine } from './policy-engine.js';
import type { PolicyCall, PolicyDecision } from './policy-types.js';

/**
 * What the run pipeline's authorize stage asks of the policies (`RunPipelineOptions.policy`):
 * whether a tool is hidden from a caller, and whether a call may run.
 */
export interface PolicyCheck {
  /** True when the caller must not know the tool exists (denied for every argument). */
  hides(tool: Tool, caller: CallerContext): boolean;
  /**
   * True when the caller must not know that this very call's object exists: `hideDenied` is on and
   * the call would be denied (`PolicyEngine.hidesCall`). Absent: only {@link hides} hides.
   */
  hidesCall?(call: PolicyCall): boolean;
  /**
   * What of `caller` its visibility depends on, as a key; undefined when nothing is ever hidden
   * from it (`PolicyEngine.visibilityKey`). Absent: something may be.
   */
  visibilityKey?(caller: CallerContext): string | undefined;
  /**
   * Throws `forbidden` for a denied call; holds an `approve` call until the approval gate answers
   * (rejecting with its error). Returns nothing when the call may run at once, so the common case
   * costs no promise. `context` makes the context the gate receives, only when one is needed.
   */
  authorize(call: PolicyCall, context: () => ExecutionContext): void | Promise<void>;
}

export interface PolicyEnforcementOptions {
  engine?: PolicyEngine | undefined;
  log?: Logger | undefined;
}

/**
 * The policies in force, shared by the pipeline and the scopes for the life of the gateway: a
 * reload swaps `engine`; the approvals feature sets `gate` and `trail` when it starts (both
 * optional: without a gate an `approve` decision fails closed, without a trail nothing is
 * recorded).
 */
export class PolicyEnforcement implements PolicyCheck {
  /** The compiled rules in force; a reload replaces it. */
  engine: PolicyEngine;
  /** Who answers held calls; absent: approvals are not configured and `approve` denies. */
  gate: ApprovalGate | undefined;
  /** Where denials are recorded (the gate records approval requests); absent: nowhere. */
  trail: AuditTrail | undefined;
  private readonly log: Logger;

  constructor(options: PolicyEnforcementOptions = {}) {
    this.engine = options.engine ?? new PolicyEngine();
    this.log = options.log ?? silentLogger;
  }

  hides(tool: Tool, caller: CallerContext): boolean {
    return this.engine.hides(tool, caller);
  }

  hidesCall(call: PolicyCall): boolean {
    return this.engine.hidesCall(call);
  }

  /** See `PolicyEngine.visibilityKey`; the scopes narrow per caller only when it is defined. */
  visibilityKey(caller: CallerContext): string | undefined {
    return this.engine.visibilityKey(caller);
  }

  authorize(call: PolicyCall, context: () => ExecutionContext): void | Promise<void> {
    const engine = this.engine;
    if (!engine.active) return;
    const decision = engine.decide(call);
    if (decision.effect === 'allow') return;
    if (decision.effect === 'deny') throw this.denied(call, decision);
    return this.approve(call, decision, context);
  }

  private async approve(
    call: PolicyCall,
    decision: PolicyDecision,
    context: () => ExecutionContext,
  ): Promise<void> {
    const rule = decision.rule ?? '(default)';
    const gate = this.gate;
    if (!gate) {
      // Fail closed: a rule asked for a person's approval and nobody can give it.
      this.record(call, {
        kind: 'policy.deny',
        decision: 'deny',
        rule,
        details: { why: 'approvals not configured' },
      });
      throw new GatewayError(
        'forbidden',
        `This call needs approval (policy "${rule}"), but approvals are not configured on this gateway`,
        { details: { rule } },
      );
    }
    // The gate records the request (with its id, how it asks and the redacted arguments): one line.
    await gate.approve(
      {
        toolId: call.tool.id,
        caller: call.caller,
        surface: call.surface,
        args: call.args,
        rule,
        ...(decision.reason === undefined ? {} : { reason: decision.reason }),
      },
      context(),
    );
  }

  private denied(call: PolicyCall, decision: PolicyDecision): GatewayError {
    const rule = decision.rule ?? '(default)';
    if (decision.error !== undefined) {
      // The gateway keeps serving: a broken rule denies the calls it cannot decide, loudly.
      this.log.warn(
        { rule, engine: decision.engine, tool: call.tool.id, error: decision.error },
        'policy rule failed while evaluated; the call is denied',
      );
    }
    this.record(call, { kind: 'policy.deny', decision: 'deny', rule });
    const reason = decision.reason === undefined ? '' : `: ${decision.reason}`;
    return new GatewayError('forbidden', `Denied by policy "${rule}"${reason}`, {
      details: { rule },
    });
  }

  private record(call: PolicyCall, event: Omit<AuditEvent, 'actor' | 'tool' | 'surface'>): void {
    // Not awaited: the trail never throws and a call's answer need not wait for the disk.
    void this.trail?.record({
      ...event,
      actor: callerKey(call.caller),
      tool: call.tool.id,
      surface: call.surface,
    });
  }
}
