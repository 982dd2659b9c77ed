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
import type { ClientChannel, RelayCapabilities } from '../../foundation/client-channel.js';

/** The client capability each server-to-client request needs. */
const REQUIRED_CAPABILITY: Record<string, 'sampling' | 'elicitation' | 'roots' | undefined> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** What the signed request state of a round names: the call, and the ask being answered. */
interface RoundState {
  call: string;
  ask: string;
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
  private readonly asks: Ask[] = [];
  private readonly closeListeners: (() => void)[] = [];
  private missing: 'sampling' | 'elicitation' | 'roots' | undefined;
  private wake: (() => void) | undefined;
  private counter = 0;
  private expiry: NodeJS.Timeout | undefined;
  /** The exchange of the current round: notifications travel on its stream. */
  context: ServerContext;
  done!: Promise<CallToolResult>;

  constructor(
    readonly owner: string,
    capabilities: RelayCapabilities,
    context: ServerContext,
    private readonly ttlMs: number,
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
    run: (channel: ClientChannel, signal: AbortSignal) => Promise<CallToolResult>,
  ): Promise<CallToolResult | InputRequiredResult> {
    const pending = new PendingCall(owner, relayCapabilities(context), context, this.ttlMs);
    this.calls.set(pending.id, pending);
    pending.done = run(pending.channel, pending.controller.signal);
    const finish = () => {
      this.calls.delete(pending.id);
      pending.close();
    };
    pending.done.then(finish, finish);
    return pending.next(this.codec);
  }

  /** Resumes the call a verified request state names with the client's answer to its ask. */
  async resume(
    context: ServerContext,
    owner: string,
    state: RoundState,
  ): Promise<CallToolResult | InputRequiredResult> {
    const pending = this.calls.get(state.call);
    if (!pending || pending.owner !== owner) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'This call is over or unknown: call the tool again',
      );
    }
    pending.context = context;
    const response = context.mcpReq.inputResponses?.[state.ask];
    // No answer to the ask: it is asked again (the same state comes back next round).
    if (response !== undefined) pending.answer(state.ask, response);
    return pending.next(this.codec);
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
