import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';

/**
 * Sees (and may change) every message a server sends, before `send` hands it on: `message` is the
 * one the server sent, and what `send` is given goes to the client instead.
 */
export type OutgoingHook = (
  message: JSONRPCMessage,
  options: TransportSendOptions | undefined,
  send: (message: JSONRPCMessage) => Promise<void>,
) => Promise<void>;

/**
 * A transport that is `inner` in everything, except that what the server sends passes through
 * `hook` first. The server is connected to this wrapper; requests still enter through the inner
 * transport (`handleRequest`), whose messages, errors and close reach the server through here.
 * Rather than reassigning the inner transport's `send`: the SDK's object keeps its own methods, and
 * the wrapper is a `Transport` like any other (tested alone, stacked, replaced).
 */
export class OutgoingHookTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  /** The inner transport's, when it says (a fixed trait of the transport). */
  readonly hasPerRequestStream?: boolean;
  /** Passed on when the inner transport has it (the server negotiates a protocol version). */
  readonly setProtocolVersion?: (version: string) => void;
  /** Passed on when the inner transport has it (the server tells it the versions it supports). */
  readonly setSupportedProtocolVersions?: (versions: string[]) => void;

  constructor(
    private readonly inner: Transport,
    private readonly hook: OutgoingHook,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
    if (inner.hasPerRequestStream !== undefined) this.hasPerRequestStream = inner.hasPerRequestStream;
    if (inner.setProtocolVersion) this.setProtocolVersion = (v) => inner.setProtocolVersion?.(v);
    if (inner.setSupportedProtocolVersions)
      this.setSupportedProtocolVersions = (v) => inner.setSupportedProtocolVersions?.(v);
    // The SDK finds optional transport features by duck typing (the HTTP transport's scope
    // challenges): whatever the inner transport offers, the wrapper offers too.
    const scoped = inner as { setScopeChallengeResolver?: (resolver: unknown) => void };
    if (typeof scoped.setScopeChallengeResolver === 'function') {
      const set = scoped.setScopeChallengeResolver.bind(inner);
      Object.defineProperty(this, 'setScopeChallengeResolver', { value: set });
    }
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.hook(message, options, (sent) => this.inner.send(sent, options));
  }
}
