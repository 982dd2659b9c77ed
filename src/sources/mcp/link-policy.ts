import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { type ClientChannel, canAnswerRequests } from '../../foundation/ports/client-channel.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { InFlightCall } from './session-links.js';

/** The client capability each server-to-client request needs. */
const REQUEST_CAPABILITY: Record<string, 'sampling' | 'elicitation' | 'roots' | undefined> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** Stands for "no client" in the calls in flight (REST, A2A and the gateway's own requests). */
export const NO_CHANNEL: ClientChannel = {
  key: '',
  get session() {
    return NO_CHANNEL;
  },
  capabilities: () => ({}),
  request: async () => {
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'no client to ask');
  },
  notify: async () => {},
  onClose: () => {},
};

/** What the policy needs to know of the session links. */
export interface LinkAvailability {
  has(session: ClientChannel): boolean;
  available(session: ClientChannel): boolean;
}

/**
 * Decides which requests of a downstream server go on a session link, learning from what the
 * server does. A link (a connection, for a stdio server a process) is worth it only for a call
 * during which the server may ask the client something; so each tool is remembered as asking
 * (the server sent a request while one of its calls was in flight) or quiet (a call finished
 * without one), and a roots-capable client needs a link once the server asks for roots at all.
 * It also tracks the calls on the shared connection, to relay a server request there when it can
 * only belong to one of them.
 */
export class LinkPolicy {
  private readonly toolAsks = new Map<string, boolean>();
  private asksForRoots = false;
  private readonly sharedCalls: InFlightCall[] = [];
  /** Sessions already told (in the log) that the link cap sent them to the shared connection. */
  private readonly capped = new WeakSet<ClientChannel>();

  constructor(
    private readonly links: LinkAvailability,
    private readonly log: Logger,
    private readonly describe: Record<string, unknown>,
  ) {}

  /**
   * Whether a request of `channel`'s session goes on a link of its own. Only a client that can
   * answer server requests needs one, and only for a call that could need it: a session that has
   * a link keeps using it; a tool call needs one unless its tool was seen to finish without asking
   * anything — or, for a roots-capable client, once the server asks for roots. Past the cap of
   * links the session shares the connection (logged once per session).
   */
  wantsLink(channel: ClientChannel, tool: string | undefined): boolean {
    const capabilities = channel.capabilities();
    if (!canAnswerRequests(capabilities)) return false;
    const wanted =
      this.links.has(channel.session) ||
      (tool !== undefined &&
        ((capabilities.roots !== undefined && this.asksForRoots) || this.toolAsks.get(tool) !== false));
    if (!wanted) return false;
    if (this.links.available(channel.session)) return true;
    if (!this.capped.has(channel.session)) {
      this.capped.add(channel.session);
      this.log.warn(this.describe, 'session links at their cap: this session shares the server connection');
    }
    return false;
  }

  /** Runs `use` as `call` on the shared connection (tracked, for `relayShared`). */
  async onShared<T>(call: InFlightCall, use: () => Promise<T>): Promise<T> {
    this.sharedCalls.push(call);
    try {
      return await use();
    } finally {
      this.sharedCalls.splice(this.sharedCalls.indexOf(call), 1);
    }
  }

  /** `call` finished: if the server asked nothing meanwhile, its tool does not need a link. */
  finished(call: InFlightCall): void {
    if (call.tool !== undefined && !call.asked && this.toolAsks.get(call.tool) !== true) {
      this.toolAsks.set(call.tool, false);
    }
  }

  /** The server sent `method` to a client while `calls` were in flight: remember who asks. */
  asked(method: string, calls: readonly InFlightCall[]): void {
    if (method === 'roots/list') this.asksForRoots = true;
    for (const call of calls) {
      call.asked = true;
      if (call.tool !== undefined) this.toolAsks.set(call.tool, true);
    }
  }

  /**
   * A server request that arrived on the shared connection. Which client is meant can be told only
   * when one call is in flight there; then it is that call's client, if it declared the capability.
   * Otherwise it is refused — never sent to a client it may not belong to. (The next calls of this
   * tool from capable clients go on links of their own, where there is never a doubt.)
   */
  async relayShared(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal) {
    const calls = [...this.sharedCalls];
    this.asked(method, calls);
    const only = calls.length === 1 ? calls[0] : undefined;
    const capability = REQUEST_CAPABILITY[method];
    if (only && only.channel !== NO_CHANNEL && capability && only.channel.capabilities()[capability]) {
      return only.channel.request(method, params, signal);
    }
    if (only && capability) only.channel.refused?.(method, capability);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidRequest,
      `${method}: the client of this call cannot answer it (it did not declare the capability)`,
    );
  }
}
