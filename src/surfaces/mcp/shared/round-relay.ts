import { type JSONRPCMessage, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { Logger } from '../../../foundation/ports/logger.js';
import type { SessionRelay } from './session-relay.js';

/** A client's round for a call another replica keeps: what that replica needs to resume it. */
export interface RelayedRound {
  /** The kept call (`PendingCall.id`) and the ask answered. */
  call: string;
  ask: string;
  /** The client's answer to the ask; absent when it sent none (the ask is asked again). */
  response?: unknown;
  /** The caller (`sessionOwner`), checked again by the keeper. */
  owner: string;
  /** The id of the client's request (a later `notifications/cancelled` names it). */
  requestId: string | number;
}

/** The keeper's side of a relayed round: the client's request, as far as a round uses it. */
export interface RelayedExchange {
  /** Aborted when the client drops its request (on the replica it reached), or the relay closes. */
  signal: AbortSignal;
  /** Sends a notification (progress, logging) to the client on the request's stream. */
  notify(notification: { method: string; params?: unknown }): Promise<void>;
}

/** Serves a relayed round on the keeper: the round's answer (a result, or the next ask). */
export type RelayedRoundHandler = (round: RelayedRound, exchange: RelayedExchange) => Promise<unknown>;

/** The relay's own methods (never a client's: these messages travel between replicas only). */
const RESUME = 'rounds/resume';
const CANCEL = 'rounds/cancel';
const ALIVE = 'rounds/alive';

/** A replica's request for a round, waiting for the keeper's answer. */
interface Waiter {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  notify(message: JSONRPCMessage): void;
  /** The keeper spoke: it is alive, the silence timer starts again. */
  heard(): void;
}

export interface RoundRelayOptions {
  /** The replicas' relay; this one's end is used for rounds only (its own channel prefix). */
  relay: SessionRelay;
  /**
   * The keeper says it is alive this often while a round runs; silence for twice as long (or
   * no answer at all) means the keeper is gone, and the round fails. Default 5000.
   */
  aliveMs?: number;
  log: Logger;
}

/**
 * Input rounds across replicas: a 2026-07-28 client re-sends its request with the round's state
 * wherever the balancer sends it, but the call it resumes runs on the replica that started it
 * (its downstream request is open there). The replica the client reached hands the round to the
 * keeper over the {@link SessionRelay} and streams back what the keeper answers: notifications
 * on the way, then the round's answer. A keeper that is gone (no word within `2 × aliveMs`)
 * fails the round as a call that is over.
 */
export class RoundRelay {
  private readonly waiting = new Map<string, Waiter>();
  private readonly serving = new Map<string, AbortController>();
  private readonly aliveMs: number;
  private counter = 0;

  constructor(private readonly options: RoundRelayOptions) {
    this.aliveMs = options.aliveMs ?? 5000;
  }

  /** This replica's name: a round's state names its keeper with it. */
  get replica(): string {
    return this.options.relay.replica;
  }

  /** Starts receiving: rounds relayed to this replica go to `handler`; answers to the waiters. */
  listen(handler: RelayedRoundHandler): Promise<void> {
    return this.options.relay.listen((exchange, message) => this.receive(exchange, message, handler));
  }

  /**
   * Hands `round` to replica `keeper` and resolves with its answer, or rejects with the keeper's
   * error. `signal` is the client's request: when it is dropped, the keeper is told to end the call.
   */
  resume(
    keeper: string,
    round: RelayedRound,
    client: {
      signal: AbortSignal;
      notify(notification: { method: string; params?: unknown }): Promise<void>;
    },
  ): Promise<unknown> {
    const exchange = `${this.replica}:${++this.counter}`;
    const { relay, log } = this.options;
    return new Promise((resolve, reject) => {
      let silence: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(silence);
        this.waiting.delete(exchange);
        client.signal.removeEventListener('abort', dropped);
      };
      const gone = () => {
        settle();
        reject(
          new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            'This call is over or unknown: call the tool again (the gateway that ran it is gone)',
          ),
        );
      };
      const heard = () => {
        clearTimeout(silence);
        silence = setTimeout(gone, 2 * this.aliveMs);
        silence.unref();
      };
      const dropped = () => {
        settle();
        void relay.send(keeper, exchange, { jsonrpc: '2.0', method: CANCEL }).catch(() => {});
        reject(client.signal.reason ?? new Error('the client cancelled the call'));
      };
      this.waiting.set(exchange, {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
        notify: (message) => {
          const { method, params } = message as { method: string; params?: unknown };
          void client.notify({ method, ...(params === undefined ? {} : { params }) }).catch(() => {});
        },
        heard,
      });
      if (client.signal.aborted) return dropped();
      client.signal.addEventListener('abort', dropped, { once: true });
      heard();
      const params = { ...round, from: this.replica } as Record<string, unknown>;
      relay.send(keeper, exchange, { jsonrpc: '2.0', id: 0, method: RESUME, params }).catch((error) => {
        log.warn({ err: (error as Error).message }, 'input round not relayed');
        gone();
      });
    });
  }

  /** Stops receiving; rounds waiting on another replica fail, rounds served here are ended. */
  async close(): Promise<void> {
    for (const waiter of [...this.waiting.values()])
      waiter.reject(new ProtocolError(ProtocolErrorCode.InternalError, 'the gateway is shutting down'));
    for (const controller of this.serving.values())
      controller.abort(new Error('the gateway is shutting down'));
    await this.options.relay.close();
  }

  private receive(exchange: string, message: JSONRPCMessage, handler: RelayedRoundHandler): void {
    const { method, params } = message as { method?: string; params?: Record<string, unknown> };
    if (method === RESUME && params) {
      void this.serve(exchange, params, handler);
      return;
    }
    if (method === CANCEL) {
      this.serving.get(exchange)?.abort(new Error('the client cancelled the call'));
      return;
    }
    const waiter = this.waiting.get(exchange);
    if (!waiter) return;
    waiter.heard();
    if (method === ALIVE) return;
    if (method !== undefined) {
      waiter.notify(message);
      return;
    }
    const { result, error } = message as {
      result?: unknown;
      error?: { code: number; message: string; data?: unknown };
    };
    if (error) waiter.reject(new ProtocolError(error.code, error.message, error.data));
    else waiter.resolve(result);
  }

  /** The keeper's side: runs the round, saying it is alive meanwhile, and sends its answer back. */
  private async serve(
    exchange: string,
    params: Record<string, unknown>,
    handler: RelayedRoundHandler,
  ): Promise<void> {
    const { relay, log } = this.options;
    const from = String(params.from);
    const send = (message: Record<string, unknown>) =>
      relay.send(from, exchange, { jsonrpc: '2.0', ...message } as JSONRPCMessage);
    const controller = new AbortController();
    this.serving.set(exchange, controller);
    const alive = setInterval(() => void send({ method: ALIVE }).catch(() => {}), this.aliveMs);
    alive.unref();
    try {
      const round: RelayedRound = {
        call: String(params.call),
        ask: String(params.ask),
        owner: String(params.owner),
        requestId: params.requestId as string | number,
        ...('response' in params ? { response: params.response } : {}),
      };
      const result = await handler(round, {
        signal: controller.signal,
        notify: (notification) => send(notification),
      });
      await send({ id: 0, result });
    } catch (error) {
      const failure =
        error instanceof ProtocolError
          ? {
              code: error.code,
              message: error.message,
              ...(error.data === undefined ? {} : { data: error.data }),
            }
          : { code: ProtocolErrorCode.InternalError, message: (error as Error).message ?? String(error) };
      await send({ id: 0, error: failure }).catch((sendError: unknown) =>
        log.warn({ err: (sendError as Error).message }, 'input round answer not relayed'),
      );
    } finally {
      clearInterval(alive);
      this.serving.delete(exchange);
    }
  }
}
