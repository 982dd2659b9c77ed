import type {
  Client,
  ClientCapabilities,
  LoggingLevel,
  ServerCapabilities,
} from '@modelcontextprotocol/client';
import { Client as AgentClient } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server } from '@modelcontextprotocol/server';
import type { ClientChannel } from '../../src/foundation/ports/client-channel.js';
import { silentLogger } from '../../src/foundation/ports/logger.js';
import type {
  PassthroughAccess,
  PassthroughRelay,
  PassthroughServer,
} from '../../src/surfaces/mcp/passthrough.js';
import {
  PASSTHROUGH_CAPABILITIES,
  type Passthrough,
  servePassthrough,
} from '../../src/surfaces/mcp/passthrough.js';
import { createSessionChannel } from '../../src/surfaces/mcp/session-channel.js';
import { type InMemoryServer, inMemoryConnection } from './in-memory-mcp.js';

type Listener = (method: string, params: Record<string, unknown> | undefined) => void;

/**
 * A `PassthroughRelay` to an in-memory downstream server (the real SDK client and server, no
 * supervision, no session links): what a passthrough asks of a downstream server, noted.
 */
export class InMemoryRelay implements PassthroughRelay {
  readonly sourceId: string;
  /** `subscription` calls, in order: `+uri` on, `-uri` off. */
  readonly subscriptions: string[] = [];
  /** `notifySession` calls, by method. */
  readonly sessionNotifications: string[] = [];
  private level: LoggingLevel | undefined;
  private readonly listeners = new Set<Listener>();

  private constructor(
    readonly name: string,
    readonly namespace: string,
    private readonly client: Client,
    private readonly close: () => Promise<void>,
  ) {
    this.sourceId = `mcp:${name}`;
  }

  /** Connects to `downstream`; the relay's name is its namespace. */
  static async connect(namespace: string, downstream: InMemoryServer): Promise<InMemoryRelay> {
    let relay: InMemoryRelay | undefined;
    const connection = await inMemoryConnection(downstream, {
      prepare: (client) => {
        client.fallbackNotificationHandler = async (notification) =>
          relay?.emit(notification.method, notification.params);
      },
    });
    relay = new InMemoryRelay(namespace, namespace, connection.client, connection.close);
    return relay;
  }

  capabilities(): ServerCapabilities | undefined {
    return this.client.getServerCapabilities();
  }

  withClient<T>(_channel: ClientChannel | undefined, use: (client: Client) => Promise<T>): Promise<T> {
    return use(this.client);
  }

  async subscription(uri: string, _channel: ClientChannel, on: boolean): Promise<void> {
    this.subscriptions.push(`${on ? '+' : '-'}${uri}`);
    await (on ? this.client.subscribeResource({ uri }) : this.client.unsubscribeResource({ uri }));
  }

  async setLogLevel(_channel: ClientChannel, level: LoggingLevel): Promise<void> {
    this.level = level;
    await this.client.setLoggingLevel(level);
  }

  logLevel(): LoggingLevel | undefined {
    return this.level;
  }

  async notifySession(_channel: ClientChannel, method: string): Promise<void> {
    this.sessionNotifications.push(method);
  }

  onNotification(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Hands the listeners a notification, as the shared connection would. */
  emit(method: string, params?: Record<string, unknown>): void {
    for (const listener of this.listeners) listener(method, params);
  }

  /** How many listen to the server's notifications now. */
  get listening(): number {
    return this.listeners.size;
  }

  disconnect(): Promise<void> {
    return this.close();
  }
}

/** A flat session served over `servers`, and an agent's client connected to it. */
export interface PassthroughSession {
  agent: AgentClient;
  passthrough: Passthrough;
  /** The notifications the agent received, in order. */
  received: { method: string; params: unknown }[];
  close(): Promise<void>;
}

/** Serves the passthrough of `servers` on a fresh session and connects an agent's client to it. */
export async function passthroughSession(
  servers: readonly PassthroughServer[],
  options: {
    mask?: (text: string) => string;
    agentCapabilities?: ClientCapabilities;
    access?: PassthroughAccess;
  } = {},
): Promise<PassthroughSession> {
  const server = new Server({ name: 'gateway', version: '1' }, { capabilities: PASSTHROUGH_CAPABILITIES });
  const session = createSessionChannel(server);
  const passthrough = servePassthrough(
    server,
    servers,
    session,
    silentLogger,
    options.mask,
    undefined,
    options.access,
  );
  const [agentSide, serverSide] = InMemoryTransport.createLinkedPair();
  const agent = new AgentClient(
    { name: 'agent', version: '1' },
    { capabilities: options.agentCapabilities ?? {} },
  );
  const received: PassthroughSession['received'] = [];
  agent.fallbackNotificationHandler = async (notification) => {
    received.push({ method: notification.method, params: notification.params });
  };
  await server.connect(serverSide);
  await agent.connect(agentSide);
  return {
    agent,
    passthrough,
    received,
    close: async () => {
      passthrough.close();
      session.close();
      await agent.close();
      await server.close();
    },
  };
}

/** Lets notifications in flight arrive. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
