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
import { type Logger, silentLogger } from '../../foundation/ports/logger.js';
import {
  type CallState,
  type PassState,
  PendingCall,
  type RoundContext,
  type RoundState,
} from './pending-call.js';
import { checkBinding, roundBinding } from './round-binding.js';
import type { RoundKeyStore } from './shared/round-key.js';
import type { RelayedExchange, RelayedRound, RoundRelay } from './shared/round-relay.js';

export { type CallState, type RoundState, withDirect } from './pending-call.js';

export interface InputRoundsOptions {
  /** HMAC key of the request state (at least 32 bytes); default a random one per process. */
  key?: Uint8Array;
  /**
   * Where replicas agree on one key (`state.driver: redis`): `key` (or the random one) is this
   * replica's proposal, and the key agreed on signs every state, so any replica verifies it.
   */
  keyStore?: RoundKeyStore;
  /** Hands a round of a call another replica keeps to that replica (`state.driver: redis`). */
  relay?: RoundRelay;
  /** How long a call waits for the client's next round, in seconds. Default 600. */
  ttlSeconds?: number;
  log?: Logger;
}

/** A key-store failure is logged at most this often; a state failing on a stale key re-reads it at most this often. */
const RETRY_MS = 1000;

/** The answer to a state that names no call this gateway (or a reachable replica) keeps. */
function overOrUnknown(): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    'This call is over or unknown: call the tool again',
  );
}

/**
 * Input rounds for 2026-07-28 clients (the revision has no server-to-client requests): when a
 * downstream server asks the client something during a call (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`), the call answers `input_required` with that request
 * and a signed request state, keeps running, and resumes when the client retries with its answer.
 * One instance serves every session of the gateway: each round of a call is a request of its own,
 * served by a server of its own.
 *
 * With replicas (a `keyStore` and a `relay`), every replica signs with the one agreed key and a
 * state names the replica keeping its call: a round answered on another replica is verified there
 * and handed to the keeper, whose answer comes back the same way.
 */
export class InputRounds {
  private readonly calls = new Map<string, PendingCall>();
  private readonly ttlMs: number;
  private readonly ttlSeconds: number;
  private readonly keyStore: RoundKeyStore | undefined;
  private readonly relay: RoundRelay | undefined;
  private readonly log: Logger;
  /** The codec of the key this gateway holds now: its own, or the one agreed with the replicas. */
  private held: { key: string; codec: RequestStateCodec<RoundState> };
  /** Codecs of keys held before (its own key, minted with while the key store did not answer). */
  private readonly earlier = new Map<string, RequestStateCodec<RoundState>>();
  private agreeing: Promise<RequestStateCodec<RoundState>> | undefined;
  private agreed = false;
  private lastTry = Number.NEGATIVE_INFINITY;

  constructor(options: InputRoundsOptions = {}) {
    this.ttlSeconds = options.ttlSeconds ?? 600;
    this.ttlMs = this.ttlSeconds * 1000;
    this.keyStore = options.keyStore;
    this.relay = options.relay;
    this.log = options.log ?? silentLogger;
    this.held = this.codecFor(options.key ?? randomBytes(32));
  }

  /** The `requestState.verify` hook of the servers: tampered or expired state is refused. */
  readonly verify = async (state: string, ctx: ServerContext): Promise<RoundState> => {
    const codec = await this.codec();
    try {
      return await codec.verify(state, ctx);
    } catch (error) {
      // Signed with another key: one this gateway held before, or the replicas' agreed key when
      // this one has not heard it yet (or Redis lost it and it was agreed anew).
      if (!this.keyStore || (error as Error).message !== 'mac') throw error;
      for (const earlier of this.earlier.values()) {
        const verified = await earlier.verify(state, ctx).catch(() => undefined);
        if (verified !== undefined) return verified;
      }
      if (Date.now() - this.lastTry < RETRY_MS) throw error;
      this.agreed = false;
      this.agreeing = undefined;
      const fresh = await this.codec();
      if (fresh === codec) throw error;
      return fresh.verify(state, ctx);
    }
  };

  /**
   * Agrees on the replicas' key now (at start), so that the first round does not wait for it. A
   * key store that does not answer leaves this gateway signing with its own key meanwhile.
   */
  async ready(): Promise<void> {
    await this.codec();
  }

  /** Starts taking the rounds other replicas hand over (with a relay). */
  async listen(): Promise<void> {
    await this.relay?.listen(this.resumeRelayed);
  }

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
    args?: unknown,
  ): Promise<CallToolResult | InputRequiredResult> {
    const binding = roundBinding(owner, target, args);
    const direct = this.directRounds(context, owner, target, args);
    const replica = this.relay?.replica;
    const pending = new PendingCall(owner, relayCapabilities(context), context, this.ttlMs, {
      target,
      binding,
      direct,
      ...(replica === undefined ? {} : { replica }),
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
    context: RoundContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    pending.context = context;
    pending.waiting = false;
    const signal = context.mcpReq.signal;
    const cancel = () => pending.controller.abort(new Error('the client cancelled the call'));
    if (signal.aborted) cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const answer = await pending.next(await this.codec());
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
   * server's keys) and the server's state out of the gateway's. A state minted for another caller,
   * another target or (a tool's) other arguments is refused (-32602), so a client cannot replay
   * it elsewhere.
   */
  directRounds(context: ServerContext, owner: string, target: string, args?: unknown): DirectRounds {
    const state = context.mcpReq.requestState<RoundState>();
    if (
      state !== undefined &&
      (!('pass' in state) ||
        state.pass.owner !== owner ||
        state.pass.target !== target ||
        (state.pass.args !== undefined && state.pass.args !== roundBinding(owner, target, args).args))
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
    return { ...round, requestState: await (await this.codec()).mint({ pass }, context) };
  }

  /**
   * Resumes the call a verified request state names with the client's answer to its ask. The
   * state is good only on the request it was issued for (`request`: the target and arguments the
   * client re-sent; by default none): another tool, other arguments or another caller are
   * refused (-32602). A call another replica keeps is resumed there, through the relay.
   */
  async resume(
    context: ServerContext,
    owner: string,
    state: CallState,
    request: { target?: string; args?: unknown } = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    checkBinding(state, roundBinding(owner, request.target ?? '', request.args));
    const response = context.mcpReq.inputResponses?.[state.ask];
    const pending = this.calls.get(state.call);
    if (pending) {
      if (pending.owner !== owner) throw overOrUnknown();
      return this.answer(pending, state.ask, response, context);
    }
    const relay = this.relay;
    if (!relay || state.replica === undefined || state.replica === relay.replica) throw overOrUnknown();
    const round: RelayedRound = {
      call: state.call,
      ask: state.ask,
      owner,
      requestId: context.mcpReq.id,
      ...(response === undefined ? {} : { response }),
    };
    const answer = await relay.resume(state.replica, round, {
      signal: context.mcpReq.signal,
      notify: (notification) => context.mcpReq.notify(notification as never),
    });
    return answer as CallToolResult | InputRequiredResult;
  }

  /** A round another replica handed over, for a call kept here. */
  private readonly resumeRelayed = (
    round: RelayedRound,
    exchange: RelayedExchange,
  ): Promise<CallToolResult | InputRequiredResult> => {
    const pending = this.calls.get(round.call);
    if (!pending || pending.owner !== round.owner) return Promise.reject(overOrUnknown());
    const context: RoundContext = {
      mcpReq: {
        id: round.requestId,
        method: 'tools/call',
        signal: exchange.signal,
        notify: (notification) => exchange.notify(notification),
      },
    };
    return this.answer(pending, round.ask, round.response, context);
  };

  /** Hands the client's answer (if any) to `pending`'s ask and serves the next round. */
  private answer(
    pending: PendingCall,
    ask: string,
    response: unknown,
    context: RoundContext,
  ): Promise<CallToolResult | InputRequiredResult> {
    // No answer to the ask: it is asked again (the same state comes back next round).
    if (response !== undefined) pending.answer(ask, response);
    return this.round(pending, context);
  }

  /** Ends every waiting call (at shutdown). */
  close(): void {
    for (const pending of this.calls.values())
      pending.controller.abort(new Error('the gateway is shutting down'));
  }

  /**
   * The codec of the key to sign with: with a key store, the replicas' agreed key once known
   * (asked once; asked again after a failure, at most every second, signing with the key held
   * meanwhile — a replica whose Redis is away still serves its own clients' rounds).
   */
  private codec(): Promise<RequestStateCodec<RoundState>> {
    const store = this.keyStore;
    if (!store || this.agreed) return Promise.resolve(this.held.codec);
    if (this.agreeing) return this.agreeing;
    if (Date.now() - this.lastTry < RETRY_MS) return Promise.resolve(this.held.codec);
    this.lastTry = Date.now();
    const agreeing = store.agree(Buffer.from(this.held.key, 'base64')).then(
      (key) => {
        const next = this.codecFor(key);
        if (next.key !== this.held.key) {
          this.earlier.set(this.held.key, this.held.codec);
          // Only the last few keys: a replica's own and the one agreed before a Redis loss.
          for (const old of [...this.earlier.keys()].slice(0, -2)) this.earlier.delete(old);
          this.earlier.delete(next.key);
          this.held = next;
        }
        this.agreed = true;
        return this.held.codec;
      },
      (error: unknown) => {
        this.log.warn(
          { err: error instanceof Error ? error.message : String(error) },
          "input rounds: the shared signing key is not reachable; signing with this gateway's own",
        );
        return this.held.codec;
      },
    );
    this.agreeing = agreeing;
    void agreeing.finally(() => {
      if (this.agreeing === agreeing) this.agreeing = undefined;
    });
    return agreeing;
  }

  private codecFor(key: Uint8Array): { key: string; codec: RequestStateCodec<RoundState> } {
    return {
      key: Buffer.from(key).toString('base64'),
      codec: createRequestStateCodec<RoundState>({
        key,
        ttlSeconds: this.ttlSeconds,
        // A state is good only for the method it was minted for.
        bind: (ctx) => ctx.mcpReq.method,
      }),
    };
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
