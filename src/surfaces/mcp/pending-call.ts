import { randomUUID } from 'node:crypto';
import {
  type CallToolResult,
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
} from '../../foundation/ports/client-channel.js';
import type { RoundBinding } from './round-binding.js';

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
export type RoundState = CallState | { pass: PassState };

/**
 * The state of a round of a call the gateway keeps: the call, the ask answered, the request the
 * state is good for (`RoundBinding`), and the replica keeping the call (with shared state: a round
 * answered on another replica is handed to it).
 */
export interface CallState extends RoundBinding {
  call: string;
  ask: string;
  replica?: string;
}

export interface PassState {
  owner: string;
  /** `tools/call:<name>`, `prompts/get:<name>`, `resources/read:<uri>`: a state is good only there. */
  target: string;
  /** Digest of the arguments of a `tools/call` (`RoundBinding.args`); absent for prompts and resources. */
  args?: string;
  state?: string;
}

/**
 * What a round reads of the request it answers: a client's request, or — a round handed over by
 * another replica — the relayed exchange standing for it.
 */
export interface RoundContext {
  mcpReq: Pick<ServerContext['mcpReq'], 'id' | 'method' | 'signal' | 'notify'>;
}

/** What a kept call's states are minted with. */
export interface PendingCallBinding {
  /** `tools/call:<name>` of the call (see `PassState.target`). */
  target: string;
  /** The request the call's states are good for. */
  binding: RoundBinding;
  /** The replica keeping the call (shared state only). */
  replica?: string;
  /** What a 2026-07-28 client sent back for a 2026-07-28 server's round. */
  direct: DirectRounds;
}

/** A server-to-client request of a downstream server, waiting for the client's answer. */
interface Ask {
  key: string;
  method: string;
  params: Record<string, unknown> | undefined;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/** A call of a 2026-07-28 client that outlives its request while the client answers asks. */
export class PendingCall {
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
  context: RoundContext;
  /** Waiting for the client's next round (no request of it in flight). */
  waiting = false;
  /** The id of the request whose answer was the last round. */
  roundRequestId: string | number | undefined;
  done!: Promise<CallToolResult>;

  constructor(
    readonly owner: string,
    capabilities: RelayCapabilities,
    context: RoundContext,
    private readonly ttlMs: number,
    private readonly pass: PendingCallBinding,
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
        const state: CallState = {
          call: this.id,
          ask: ask.key,
          ...this.pass.binding,
          ...(this.pass.replica === undefined ? {} : { replica: this.pass.replica }),
        };
        const requestState = await codec.mint(state, this.mintContext());
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
            args: this.pass.binding.args,
            ...(requestState === undefined ? {} : { state: requestState }),
          };
          return { ...round, requestState: await codec.mint({ pass }, this.mintContext()) };
        }
        return settled.result;
      }
    }
  }

  /**
   * The context a state is minted in: the codec binds a state to the request's method, all it
   * reads of it — which a relayed round's exchange carries too.
   */
  private mintContext(): ServerContext {
    return this.context as ServerContext;
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
