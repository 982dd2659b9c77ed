/**
 * The way back to the client whose session a call belongs to: server-to-client requests
 * (`sampling/createMessage`, `elicitation/create`, `roots/list`) and notifications a downstream
 * server sends while serving that client are relayed through it. A surface that can relay (an MCP
 * session) gives one to each call; REST and A2A calls have none, so downstream servers never ask
 * them anything.
 */
export interface ClientChannel {
  /** Stable per client session; resources tied to the session (downstream links) are keyed on it. */
  readonly key: string;
  /** The session's own channel (not tied to a call); a session channel is its own `session`. */
  readonly session: ClientChannel;
  /** What the client declared it can answer (the `sampling`, `elicitation`, `roots` capabilities). */
  capabilities(): RelayCapabilities;
  /** Sends a request to the client, on the stream of the current call when there is one. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    signal?: AbortSignal,
  ): Promise<unknown>;
  /**
   * Sends a notification to the client, on the stream of the current call when there is one.
   * `origin` is the namespace of the downstream server it comes from, when it comes from one (the
   * surface may have to rename what it names, e.g. a resource URI).
   */
  notify(method: string, params: Record<string, unknown> | undefined, origin?: string): Promise<void>;
  /** Runs `listener` once when the client session ends. */
  onClose(listener: () => void): void;
  /**
   * Told when a server request of the call was refused because the client did not declare
   * `capability` (a 2026-07-28 call then fails with -32021 rather than as a tool error).
   */
  refused?(method: string, capability: string): void;
  /**
   * Set for a call of a 2026-07-28 client that answers a 2026-07-28 server's input rounds itself
   * (a flat tool, prompt or resource): the server's `input_required` answer goes back to the client
   * as it is, and this carries the client's answers to the previous round.
   */
  readonly direct?: DirectRounds;
  /**
   * True for a client that keeps a 2025-era session (it takes server-to-client requests on it at
   * any time): a downstream server of both eras may then ask it on a 2025 session of its own.
   */
  readonly sessionful?: boolean;
}

/** What a 2026-07-28 client sends back with a retried request: its answers and the server's state. */
export interface DirectRounds {
  /** The answers, by the keys the server chose. */
  inputResponses?: Record<string, unknown>;
  /** The server's own request state of the previous round, as it gave it. */
  requestState?: string;
}

/** Whether a tool result is a 2026-07-28 server's `input_required` answer passed through. */
export function isInputRequired(result: object): boolean {
  return (result as { resultType?: unknown }).resultType === 'input_required';
}

/** Client capabilities a gateway can relay to downstream servers. */
export interface RelayCapabilities {
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  roots?: Record<string, unknown>;
  /** Extensions the client declared that a server may use on its behalf (the Tasks extension). */
  extensions?: Record<string, unknown>;
}

/** True when the client can answer at least one kind of server-to-client request. */
export function canAnswerRequests(capabilities: RelayCapabilities): boolean {
  return (
    capabilities.sampling !== undefined ||
    capabilities.elicitation !== undefined ||
    capabilities.roots !== undefined
  );
}
