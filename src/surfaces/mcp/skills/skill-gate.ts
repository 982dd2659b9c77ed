import type { ServerContext } from '@modelcontextprotocol/server';
import type { ActionGate, ActionTarget } from '../../../execution/action-gate.js';
import type { CallerContext } from '../../../foundation/ports/tool-backend.js';
import type { SessionChannel } from '../session-channel.js';

/** One skill as the policies see it: the action `<namespace>:skills/get` with `{ name }`. */
export interface SkillAction {
  /** The server that offers it, or the configured skills' source (namespace `skill`). */
  target: ActionTarget;
  /** The skill's name as the client sees it: its frontmatter `name`, the last segment of its directory. */
  name: string;
}

/**
 * How one session's `skills/get` and skill file reads pass the stages tool calls pass (policies,
 * approvals, rate limits, the activity feed): each is the action `skills/get` of the skill's
 * namespace with the arguments `{ name }`.
 */
export interface SkillGate {
  /**
   * False when no policy can hide anything from the caller (none configured, or
   * `hideDenied: false`): listings then ask nothing per skill.
   */
  mayHide(): boolean;
  /**
   * Whether the skill is hidden from the session's caller (`policies.hideDenied` and a rule denies
   * its `skills/get`): left out of `skills/list` and search, unknown to its get and reads.
   */
  hides(skill: SkillAction): boolean;
  /**
   * Runs `execute` (the get or read of `skill`) once the stages let it through; throws the
   * stage's GatewayError (`forbidden`, `rate_limited`, …) when one refuses it. `request` is the
   * client's request (its cancellation, its session, its response stream for an approval form);
   * absent: none of these.
   */
  run<T>(
    skill: SkillAction,
    request: ServerContext | undefined,
    execute: (signal: AbortSignal) => Promise<T>,
  ): Promise<T>;
}

/**
 * The skill gate of one session of `caller` over the gateway's action gate (the instances tool
 * calls and passthrough reads go through); `session` carries an approval's form to the client, as
 * for a `prompts/get`.
 */
export function skillGate(gate: ActionGate, caller: CallerContext, session?: SessionChannel): SkillGate {
  const asCaller = (request?: ServerContext): CallerContext => ({
    ...caller,
    surface: 'mcp',
    ...(request?.sessionId ? { sessionId: request.sessionId } : {}),
  });
  // Listings ask about every skill: one caller object for all of them.
  const listing = asCaller();
  return {
    mayHide: () => gate.mayHide(listing),
    hides: (skill) =>
      gate.hides({
        target: skill.target,
        method: 'skills/get',
        args: { name: skill.name },
        caller: listing,
      }),
    run: (skill, request, execute) =>
      gate.run(
        {
          target: skill.target,
          method: 'skills/get',
          args: { name: skill.name },
          caller: asCaller(request),
          ...(request ? { signal: request.mcpReq.signal } : {}),
          ...(request && session ? { channel: session.forCall(request) } : {}),
        },
        execute,
      ),
  };
}
