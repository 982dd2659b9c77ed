import { randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type {
  ClientChannel,
  DirectRounds,
  RelayCapabilities,
} from '../../foundation/ports/client-channel.js';
import { type PassState, PendingCall, type RoundState } from './pending-call.js';

export { type RoundState, withDirect } from './pending-call.js';

export interface InputRoundsOptions {
  /** HMAC key of the request state (at least 32 bytes); default a random one per process. */
  key?: Uint8Array;
  /** How long a call waits for the client's next round, in seconds. Default 600. */
  ttlSeconds?: number;
}
/**
 * Input rounds for 2026-07-28 clients (the revision has no server-to-client requests): when a
 * downstream server asks the client something during a call (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`), the call answers `input_required` with that request
 * and a signed request state, keeps running, and resumes when the client retries with its answer.
 * One instance serves every session of the gateway: each round of a call is a request of its own,
 * served by a server of its own.
 */
export class InputRounds {
  private readonly codec: RequestStateCodec<RoundState>;
  private readonly calls = new Map<string, PendingCall>();
  private readonly ttlMs: number;

  constructor(options: InputRoundsOptions = {}) {
    const ttlSeconds = options.ttlSeconds ?? 600;
    this.ttlMs = ttlSeconds * 1000;
    this.codec = createRequestStateCodec<RoundState>({
      key: options.key ?? randomBytes(32),
      ttlSeconds,
      // A state is good only for the method it was minted for.
      bind: (ctx) => ctx.mcpReq.method,
    });
  }

  /** The `requestState.verify` hook of the servers: tampered or expired state is refused. */
  readonly verify = (state: string, ctx: ServerContext): Promise<RoundState> => this.codec.verify(state, ctx);

  /** Calls waiting for a round (for tests and shutdown). */
  get size(): number {
    return this.calls.size;
  }

  /**
   * Starts a call of a 2026-07-28 client: `run` gets the channel through which the downstream
   * server's asks reach the client, and the call's signal (the call outlives the request).
   */
  async start(
    context: ServerContext,
    owner: string,
    run: (
      channels: { channel: ClientChannel; direct: ClientChannel },
      signal: AbortSignal,
    ) => Promise<CallToolResult>,
    target = '',
  ): Promise<CallToolResult | InputRequiredResult> {
    const direct = this.directRounds(context, owner, target);
    const pending = new PendingCall(owner, relayCapabilities(context), context, this.ttlMs, {
      target,
      direct,
    });
    this.calls.set(pending.id, pending);
    pending.done = run(
      { channel: pending.channel, direct: pending.directChannel },
      pending.controller.signal,
    );
    const finish = () => {
      this.calls.delete(pending.id);
      pending.close();
    };
    pending.done.then(finish, finish);
    return this.round(pending, context);
  }

  /**
   * One round of `pending`, served to the request of `context`. A client that gives up on the
   * request (it closes the connection: the revision's cancellation on HTTP) gives up on the call:
   * it is ended, and the downstream server told (`notifications/cancelled`).
   */
  private async round(
    pending: PendingCall,
    context: ServerContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    pending.context = context;
    pending.waiting = false;
    const signal = context.mcpReq.signal;
    const cancel = () => pending.controller.abort(new Error('the client cancelled the call'));
    if (signal.aborted) cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const answer = await pending.next(this.codec);
      pending.roundRequestId = context.mcpReq.id;
      pending.waiting = this.calls.has(pending.id);
      return answer;
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /**
   * The client cancelled `requestId` (`notifications/cancelled`) after its answer was an ask: the
   * call waiting on its next round is ended, and its downstream server told. Only a call of
   * `owner` whose last round was that request, and only when exactly one is (request ids are the
   * client's own, and several clients may share an owner): true when one was ended.
   */
  cancel(owner: string, requestId: string | number): boolean {
    const matching = [...this.calls.values()].filter(
      (pending) => pending.waiting && pending.owner === owner && pending.roundRequestId === requestId,
    );
    const [only] = matching;
    if (!only || matching.length > 1) return false;
    only.controller.abort(new Error('the client cancelled the call'));
    return true;
  }

  /**
   * Ends every call waiting on a client's next round (at shutdown: the client would come back to
   * a gateway that is gone); their downstream servers are told. How many were ended.
   */
  endWaiting(): number {
    const waiting = [...this.calls.values()].filter((pending) => pending.waiting);
    for (const pending of waiting) pending.controller.abort(new Error('the gateway is shutting down'));
    return waiting.length;
  }

  /**
   * What a 2026-07-28 client sends back for a server's round of `target`: its answers (by the
   * server's keys) and the server's state out of the gateway's. A state minted for another caller
   * or another target is refused (-32602), so a client cannot replay it elsewhere.
   */
  directRounds(context: ServerContext, owner: string, target: string): DirectRounds {
    const state = context.mcpReq.requestState<RoundState>();
    if (
      state !== undefined &&
      (!('pass' in state) || state.pass.owner !== owner || state.pass.target !== target)
    ) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'This request state belongs to another request',
      );
    }
    const inputResponses = context.mcpReq.inputResponses;
    return {
      ...(inputResponses ? { inputResponses } : {}),
      ...(state?.pass.state === undefined ? {} : { requestState: state.pass.state }),
    };
  }

  /** A 2026-07-28 server's round of `target` (a prompt, a resource), for the client: its state wrapped in ours. */
  async passOn(context: ServerContext, owner: string, target: string, result: InputRequiredResult) {
    const { requestState, ...round } = result;
    const pass: PassState = { owner, target, ...(requestState === undefined ? {} : { state: requestState }) };
    return { ...round, requestState: await this.codec.mint({ pass }, context) };
  }

  /** Resumes the call a verified request state names with the client's answer to its ask. */
  async resume(
    context: ServerContext,
    owner: string,
    state: { call: string; ask: string },
  ): Promise<CallToolResult | InputRequiredResult> {
    const pending = this.calls.get(state.call);
    if (!pending || pending.owner !== owner) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'This call is over or unknown: call the tool again',
      );
    }
    const response = context.mcpReq.inputResponses?.[state.ask];
    // No answer to the ask: it is asked again (the same state comes back next round).
    if (response !== undefined) pending.answer(state.ask, response);
    return this.round(pending, context);
  }

  /** Ends every waiting call (at shutdown). */
  close(): void {
    for (const pending of this.calls.values())
      pending.controller.abort(new Error('the gateway is shutting down'));
  }
}

/** What a 2026-07-28 client declared in its request's envelope, as far as it can be relayed. */
export function relayCapabilities(context: ServerContext): RelayCapabilities {
  const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
  const declared = (envelope?.['io.modelcontextprotocol/clientCapabilities'] ?? {}) as ClientCapabilities;
  const capabilities: RelayCapabilities = {};
  if (declared.sampling) capabilities.sampling = declared.sampling as Record<string, unknown>;
  if (declared.elicitation) capabilities.elicitation = declared.elicitation as Record<string, unknown>;
  if (declared.roots) capabilities.roots = declared.roots as Record<string, unknown>;
  return capabilities;
}

/** Whether a request is of the 2026-07-28 revision (it carries the per-request envelope). */
export function isModernRequest(context: ServerContext): boolean {
  return context.mcpReq.envelope !== undefined;
}
