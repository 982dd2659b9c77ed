import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ApprovalGate, ApprovalRequest } from '../../foundation/ports/approval-gate.js';
import type { AuditTrail } from '../../foundation/ports/audit-trail.js';
import type { ClientChannel } from '../../foundation/ports/client-channel.js';
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import { callerKey, type ExecutionContext } from '../../foundation/ports/tool-backend.js';
import { redactArgs } from '../observe/redact-args.js';
import { maskStrings } from '../secrets/secret-masker.js';
import type { ApprovalBoard } from './approval-board.js';
import type { PendingApproval } from './pending-approval.js';

export type { PendingApproval } from './pending-approval.js';

/** `approvals.via`: ask the calling client when it can answer (`auto`), or always the admins. */
export type ApprovalVia = 'auto' | 'admin';

/** `approvals.timeoutMs` when the config does not set it: 5 minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 300_000;

/** What an admin's answer came to. */
export type ApprovalAnswer = 'approved' | 'denied';

/** Options of {@link ApprovalDesk}; read on every call, so a reload applies to the next held call. */
export interface ApprovalDeskOptions {
  /** `approvals.via` now. Default `auto`. */
  via?: (() => ApprovalVia) | undefined;
  /** `approvals.timeoutMs` now. Default {@link DEFAULT_APPROVAL_TIMEOUT_MS}. */
  timeoutMs?: (() => number) | undefined;
  /** Where requests and answers are recorded (`approval.request`, `approval.answer`). */
  audit?: AuditTrail | undefined;
  /** Masks known secret values in what the desk shows (the arguments). */
  mask?: ((text: string) => string) | undefined;
  log?: Logger | undefined;
  /**
   * Where replicas share their queues (`state.driver: redis`): every replica lists every held
   * call and an answer given on any replica reaches the one holding it. Absent: this process only.
   */
  board?: ApprovalBoard | undefined;
}

/** One call in the queue and the way to settle it. */
interface Held {
  entry: PendingApproval;
  settle(answer: ApprovalAnswer | 'timeout' | 'cancelled', by: string): void;
}

/**
 * The approval gate (`ApprovalGate`): where calls a policy rule holds (`effect: approve`) wait for
 * a person. When the calling MCP client declared elicitation (form mode) and `via` is `auto`, the
 * client is asked in its own UI, with a short form naming the tool, the rule's reason and the
 * redacted arguments: `accept` runs the call, `decline` or `cancel` answers `approval_denied`.
 * Otherwise the call waits in a queue admins see and answer (`pending`, `answer`). Either way,
 * nobody answering within the timeout answers `approval_timeout`, and the call's own signal
 * aborting (the client cancelled, the call's deadline) answers `cancelled` and takes the call out
 * of the queue.
 *
 * A held call stays in the process holding it; with a `board` (replicas on Redis) every replica
 * lists it and an answer given anywhere reaches it (docs/APPROVALS-AND-AUDIT.md).
 */
export class ApprovalDesk implements ApprovalGate {
  private readonly held = new Map<string, Held>();
  private readonly listeners = new Set<() => void>();
  private readonly log: Logger;

  constructor(private readonly options: ApprovalDeskOptions = {}) {
    this.log = options.log ?? silentLogger;
  }

  async approve(request: ApprovalRequest, context: ExecutionContext): Promise<void> {
    if (context.signal.aborted) {
      throw new GatewayError('cancelled', `The call of ${request.toolId} was cancelled before it was held`);
    }
    const mask = this.options.mask;
    const redacted = redactArgs(request.args);
    const args = mask ? maskStrings(redacted, mask) : redacted;
    const timeoutMs = this.options.timeoutMs?.() ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    const requestedAt = Date.now();
    const deadline = requestedAt + timeoutMs;
    const caller = callerKey(request.caller);
    const id = randomUUID();
    const channel = (this.options.via?.() ?? 'auto') === 'auto' ? formChannel(context.channel) : undefined;
    const via = channel ? 'client' : 'admin';
    const base = { actor: caller, tool: request.toolId, surface: request.surface, rule: request.rule };
    await this.options.audit?.record({
      ...base,
      kind: 'approval.request',
      decision: 'approve',
      details: { id, via, args, ...(request.reason === undefined ? {} : { reason: request.reason }) },
    });
    // A client that declared elicitation but fails to answer one (an error, not a refusal): the
    // admins can still answer in the time left.
    const asked = channel
      ? await this.askClient(channel, request, args, deadline, context.signal, caller).catch(
          (error: unknown) => {
            this.log.warn(
              { err: error, tool: request.toolId },
              'approval: the client could not be asked; queued for admins',
            );
            return undefined;
          },
        )
      : undefined;
    const outcome =
      asked ?? (await this.queue(id, request, args, { requestedAt, deadline }, context.signal, caller));
    await this.options.audit?.record({
      ...base,
      kind: 'approval.answer',
      actor: outcome.by,
      decision: outcome.answer,
      details: { id, via: outcome.via, caller },
    });
    if (outcome.answer === 'approved') return;
    const details = { rule: request.rule, tool: request.toolId };
    if (outcome.answer === 'denied') {
      throw new GatewayError(
        'approval_denied',
        `The call of ${request.toolId} was not approved (rule "${request.rule}")`,
        { details },
      );
    }
    if (outcome.answer === 'timeout') {
      throw new GatewayError(
        'approval_timeout',
        `Nobody answered the approval of ${request.toolId} within ${timeoutMs} ms (rule "${request.rule}")`,
        { details: { ...details, timeoutMs } },
      );
    }
    throw new GatewayError(
      'cancelled',
      `The call of ${request.toolId} was cancelled while it waited for approval`,
      {
        details,
      },
    );
  }

  /** The calls waiting for an admin, oldest first. */
  pending(): PendingApproval[] {
    return [...this.held.values()].map((held) => held.entry);
  }

  /**
   * An admin's answer to the held call `id`: it runs (`approve`) or answers `approval_denied`.
   * @throws GatewayError `not_found` when no call waits under `id` (answered, timed out, cancelled,
   *   or held by another replica).
   */
  answer(id: string, decision: 'approve' | 'deny', by: string): PendingApproval {
    const held = this.held.get(id);
    if (!held)
      throw new GatewayError('not_found', `No call waits for approval with id "${id}" on this gateway`);
    held.settle(decision === 'approve' ? 'approved' : 'denied', by);
    return held.entry;
  }

  /**
   * Takes the answers other replicas send to calls held here (with a board); call once at start.
   */
  async start(): Promise<void> {
    await this.options.board?.listen((answer) => {
      this.held.get(answer.id)?.settle(answer.decision === 'approve' ? 'approved' : 'denied', answer.by);
    });
  }

  /**
   * The calls waiting for an admin on every replica (with a board), else on this one. While the
   * board cannot be read (Redis down), this replica's own.
   */
  async list(): Promise<PendingApproval[]> {
    const board = this.options.board;
    if (!board) return this.pending();
    try {
      const shared = await board.list();
      const listed = new Set(shared.map((entry) => entry.id));
      // A call held here whose post has not landed yet is still listed.
      return [...shared, ...this.pending().filter((entry) => !listed.has(entry.id))];
    } catch (error) {
      this.log.warn({ err: error }, "approvals: the shared list cannot be read; listing this gateway's own");
      return this.pending();
    }
  }

  /**
   * An admin's answer to the held call `id`, wherever it is held: here, or (with a board) on the
   * replica holding it, which runs it or answers `approval_denied`.
   * @throws GatewayError `not_found` when no call waits under `id` on any replica.
   */
  async answerAnywhere(id: string, decision: 'approve' | 'deny', by: string): Promise<PendingApproval> {
    if (this.held.has(id) || !this.options.board) return this.answer(id, decision, by);
    const entry = await this.options.board.send({ id, decision, by });
    if (!entry) throw new GatewayError('not_found', `No call waits for approval with id "${id}"`);
    return entry;
  }

  /** Calls `listener` whenever the queue changes; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Answers every waiting call `cancelled` (shutdown). */
  async close(): Promise<void> {
    for (const held of [...this.held.values()]) held.settle('cancelled', 'gateway');
    await this.options.board?.close();
  }

  /** Asks the client through elicitation; resolves with its answer, or rejects when it could not be asked. */
  private async askClient(
    channel: ClientChannel,
    request: ApprovalRequest,
    args: unknown,
    deadline: number,
    signal: AbortSignal,
    caller: string,
  ): Promise<{ answer: ApprovalAnswer | 'timeout' | 'cancelled'; by: string; via: string }> {
    const timer = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
    const both = AbortSignal.any([signal, timer]);
    try {
      const result = (await channel.request('elicitation/create', approvalForm(request, args), both)) as {
        action?: unknown;
      };
      return { answer: result.action === 'accept' ? 'approved' : 'denied', by: caller, via: 'client' };
    } catch (error) {
      if (signal.aborted) return { answer: 'cancelled', by: caller, via: 'client' };
      if (timer.aborted) return { answer: 'timeout', by: 'gateway', via: 'client' };
      throw error;
    }
  }

  /** Puts the call in the admin queue until an admin answers, the deadline passes or the call is cancelled. */
  private queue(
    id: string,
    request: ApprovalRequest,
    args: unknown,
    { requestedAt, deadline }: { requestedAt: number; deadline: number },
    signal: AbortSignal,
    caller: string,
  ): Promise<{ answer: ApprovalAnswer | 'timeout' | 'cancelled'; by: string; via: string }> {
    return new Promise((resolve) => {
      const entry: PendingApproval = {
        id,
        tool: request.toolId,
        caller,
        surface: request.surface,
        rule: request.rule,
        ...(request.reason === undefined ? {} : { reason: request.reason }),
        args,
        requestedAt: new Date(requestedAt).toISOString(),
        expiresAt: new Date(deadline).toISOString(),
      };
      const onAbort = () => settle('cancelled', caller);
      const timer = setTimeout(() => settle('timeout', 'gateway'), Math.max(0, deadline - Date.now()));
      const settle = (answer: ApprovalAnswer | 'timeout' | 'cancelled', by: string) => {
        if (!this.held.delete(id)) return;
        this.options.board?.remove(id).catch((error: unknown) => {
          this.log.warn({ err: error, id }, 'approvals: a settled call stays listed until it expires');
        });
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.changed();
        resolve({ answer, by, via: 'admin' });
      };
      this.held.set(id, { entry, settle });
      if (signal.aborted) return settle('cancelled', caller);
      this.options.board?.post(entry).catch((error: unknown) => {
        this.log.warn({ err: error, id }, 'approvals: only this gateway lists the held call');
      });
      signal.addEventListener('abort', onAbort, { once: true });
      this.changed();
    });
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not keep the others (or the call) from going on.
      }
    }
  }
}

/** The channel when its client can answer a form elicitation; undefined otherwise. */
function formChannel(channel: ClientChannel | undefined): ClientChannel | undefined {
  const elicitation = channel?.capabilities().elicitation;
  if (!channel || elicitation === undefined) return undefined;
  // `{}` means form mode (the capability before modes existed); a client listing modes must list `form`.
  const modes = Object.keys(elicitation);
  return modes.length === 0 || modes.includes('form') ? channel : undefined;
}

/** The `_meta` key marking an `elicitation/create` as an approval's form. */
export const APPROVAL_META = 'io.aperture/approval';

/** The `elicitation/create` params of an approval: what is asked, with nothing to fill in. */
export function approvalForm(request: ApprovalRequest, args: unknown): Record<string, unknown> {
  const lines = [
    `Approve the call of ${request.toolId}?`,
    ...(request.reason === undefined ? [] : [`Why this is asked: ${request.reason}`]),
    `Arguments: ${JSON.stringify(args)}`,
    `Rule: ${request.rule}`,
  ];
  return {
    mode: 'form',
    message: lines.join('\n'),
    requestedSchema: { type: 'object', properties: {} },
    // Tells a client that knows it (the CLI's terminal) that this form is an approval.
    _meta: { [APPROVAL_META]: { tool: request.toolId, rule: request.rule } },
  };
}
