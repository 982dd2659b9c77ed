import { randomBytes, randomUUID } from 'node:crypto';
import {
  type CallToolResult,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  type ClientChannel,
  type DirectRounds,
  isInputRequired,
  type RelayCapabilities,
} from '../../foundation/client-channel.js';

/** The client capability each server-to-client request needs. */
const REQUIRED_CAPABILITY: Record<string, 'sampling' | 'elicitation' | 'roots' | undefined> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * What the signed request state of a round names: the call the gateway keeps running and the ask
 * being answered (a 2025 server's request), or — a 2026-07-28 server's own round passed through —
 * whose request it was, what it called, and the server's own state to hand back to it.
 */
export type RoundState = { call: string; ask: string } | { pass: PassState };

interface PassState {
  owner: string;
  /** `tools/call:<name>`, `prompts/get:<name>`, `resources/read:<uri>`: a state is good only there. */
  target: string;
  state?: string;
}

/** A server-to-client request of a downstream server, waiting for the client's answer. */
interface Ask {
  key: string;
  method: string;
  params: Record<string, unknown> | undefined;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

export interface InputRoundsOptions {
  /** HMAC key of the request state (at least 32 bytes); default a random one per process. */
  key?: Uint8Array;
  /** How long a call waits for the client's next round, in seconds. Default 600. */
  ttlSeconds?: number;
}

/** A call of a 2026-07-28 client that outlives its request while the client answers asks. */
class PendingCall {
  readonly id = randomUUID();
  readonly controller = new AbortController();
  readonly channel: ClientChannel;
  /** The channel of a flat call: a 2026-07-28 server's rounds pass through to the client. */
  readonly directChannel: ClientChannel;
  private readonly asks: Ask[] = [];
  private readonly closeListeners: (() => void)[] = [];
  private missing: 'sampling' | 'elicitation' | 'roots' | undefined;
  private wake: (() => void) | undefined;
  private counter = 0;
  private expiry: NodeJS.Timeout | undefined;
  /** The exchange of the current round: notifications travel on its stream. */
  context: ServerContext;
  /** Waiting for the client's next round (no request of it in flight). */
  waiting = false;
  /** The id of the request whose answer was the last round. */
  roundRequestId: string | number | undefined;
  done!: Promise<CallToolResult>;

  constructor(
    readonly owner: string,
    capabilities: RelayCapabilities,
    context: ServerContext,
    private readonly ttlMs: number,
    private readonly pass: { target: string; direct: DirectRounds },
  ) {
    this.context = context;
    const channel: ClientChannel = {
      key: this.id,
      get session() {
        return channel;
      },
      capabilities: () => capabilities,
      request: (method, params, signal) => this.ask(capabilities, method, params, signal),
      notify: async (method, params) => {
        await this.context.mcpReq.notify({ method, params } as never).catch(() => {});
      },
      onClose: (listener) => void this.closeListeners.push(listener),
      refused: (_method, capability) => {
        if (capability === 'sampling' || capability === 'elicitation' || capability === 'roots') {
          this.missing = capability;
          this.wake?.();
        }
      },
    };
    this.channel = channel;
    this.directChannel = withDirect(channel, pass.direct);
  }

  private ask(
    capabilities: RelayCapabilities,
    method: string,
    params: Record<string, unknown> | undefined,
    signal: AbortSignal | undefined,
  ): Promise<unknown> {
    const needed = REQUIRED_CAPABILITY[method];
    if (needed && capabilities[needed] === undefined) {
      // The client did not declare what the server asks for: the call fails with -32021, as the
      // 2026-07-28 revision says, rather than as a tool error.
      this.missing = needed;
      this.wake?.();
      return Promise.reject(
        new ProtocolError(ProtocolErrorCode.InvalidRequest, `the client does not support ${method}`),
      );
    }
    return new Promise((resolve, reject) => {
      const ask: Ask = { key: `${method}#${++this.counter}`, method, params, resolve, reject };
      this.asks.push(ask);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      this.wake?.();
    });
  }

  /** Hands the client's answer to the ask it answers; false when no such ask is waiting. */
  answer(key: string, response: unknown): boolean {
    const index = this.asks.findIndex((ask) => ask.key === key);
    const ask = this.asks[index];
    if (!ask) return false;
    this.asks.splice(index, 1);
    ask.resolve(response);
    return true;
  }

  /** Runs until the call ends or asks the client something; the round's answer. */
  async next(codec: RequestStateCodec<RoundState>): Promise<CallToolResult | InputRequiredResult> {
    clearTimeout(this.expiry);
    for (;;) {
      if (this.missing)
        throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { [this.missing]: {} } });
      const ask = this.asks[0];
      if (ask) {
        // A client that never comes back must not keep the call (and its downstream link) forever.
        this.expiry = setTimeout(() => this.controller.abort(new Error('input round expired')), this.ttlMs);
        this.expiry.unref();
        const requestState = await codec.mint({ call: this.id, ask: ask.key }, this.context);
        return inputRequired({
          inputRequests: { [ask.key]: { method: ask.method, params: ask.params ?? {} } as never },
          requestState,
        });
      }
      const woken = new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      const settled = await Promise.race([
        this.done.then((result) => ({ result })),
        woken.then(() => undefined),
      ]);
      this.wake = undefined;
      if (settled) {
        if (this.missing) continue;
        if (isInputRequired(settled.result)) {
          // The server's own round: its keys and state reach the client, the state wrapped in ours.
          const { requestState, ...round } = settled.result as unknown as InputRequiredResult;
          const pass: PassState = {
            owner: this.owner,
            target: this.pass.target,
            ...(requestState === undefined ? {} : { state: requestState }),
          };
          return { ...round, requestState: await codec.mint({ pass }, this.context) };
        }
        return settled.result;
      }
    }
  }

  close(): void {
    clearTimeout(this.expiry);
    for (const ask of this.asks.splice(0)) ask.reject(new Error('call ended'));
    for (const listener of this.closeListeners.splice(0)) {
      try {
        listener();
      } catch {
        // A listener's failure must not keep the others from running.
      }
    }
  }
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

/** `channel` for a call whose 2026-07-28 server rounds go to the client as they are. */
export function withDirect(
  channel: ClientChannel,
  direct: DirectRounds,
  capabilities?: RelayCapabilities,
): ClientChannel {
  return {
    key: channel.key,
    get session() {
      return channel.session;
    },
    capabilities: () => capabilities ?? channel.capabilities(),
    request: (method, params, signal) => channel.request(method, params, signal),
    notify: (method, params, origin) => channel.notify(method, params, origin),
    onClose: (listener) => channel.onClose(listener),
    refused: (method, capability) => channel.refused?.(method, capability),
    direct,
  };
}

/** Whether a request is of the 2026-07-28 revision (it carries the per-request envelope). */
export function isModernRequest(context: ServerContext): boolean {
  return context.mcpReq.envelope !== undefined;
}
