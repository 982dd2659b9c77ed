import { Client, type ClientCapabilities } from '@modelcontextprotocol/client';
import { InMemoryTransport, Server, type ServerCapabilities } from '@modelcontextprotocol/server';
import type { Connection } from '../../src/sources/mcp/open-connection.js';

/** A downstream server in this process, and what reached it. */
export interface InMemoryServer {
  server: Server;
  /** Every request the server received, by method, in order. */
  received: { method: string; params: unknown }[];
}

/** A bare SDK server with `capabilities`; `setup` registers its handlers. */
export function inMemoryServer(
  capabilities: ServerCapabilities,
  setup: (server: Server, received: InMemoryServer['received']) => void = () => {},
): InMemoryServer {
  const server = new Server({ name: 'downstream', version: '1' }, { capabilities });
  const received: InMemoryServer['received'] = [];
  setup(server, received);
  return { server, received };
}

/**
 * A `Connection` (what `openConnection` gives) to `downstream` over an in-memory transport pair:
 * the real SDK client and server, no process and no HTTP.
 */
export async function inMemoryConnection(
  downstream: InMemoryServer,
  options: { capabilities?: ClientCapabilities; prepare?: (client: Client) => void } = {},
): Promise<Connection> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'gateway', version: '1' }, { capabilities: options.capabilities ?? {} });
  options.prepare?.(client);
  await downstream.server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    transport: 'stdio',
    close: async () => {
      await client.close();
    },
  };
}
