import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Gateway, type GatewayOptions } from '../../src/app/gateway.js';
import { parseConfigValue } from '../../src/config/load-config.js';
import { type Logger, silentLogger } from '../../src/foundation/ports/logger.js';

/** A gateway built in this process from a raw config object (validated as a file would be). */
export function gatewayFrom(
  raw: Record<string, unknown> = {},
  options: Omit<GatewayOptions, 'loaded' | 'log'> & { log?: Logger } = {},
): Promise<Gateway> {
  // In memory unless a test asks otherwise: what one test teaches search must not reach another.
  const { config } = parseConfigValue({ state: { driver: 'memory' }, ...raw });
  return Gateway.create({
    loaded: { config, baseDir: process.cwd(), warnings: [] },
    log: silentLogger,
    ...options,
  });
}

/** An in-process gateway serving HTTP on a free port, with an MCP SDK client connected; disposable. */
export async function servedGateway(
  raw: Record<string, unknown> = {},
): Promise<{ gateway: Gateway; client: Client } & AsyncDisposable> {
  const gateway = await gatewayFrom(raw);
  const listener = await gateway.serveHttp('127.0.0.1', 0);
  const client = new Client({ name: 'it', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}/mcp`)));
  return {
    gateway,
    client,
    async [Symbol.asyncDispose]() {
      await client.close();
      await gateway.close();
    },
  };
}
