/** The latency variants of the downstream benchmark: Aperture, its peers and the reference relays (child programs in fixtures/). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASELINE_SERVER, GATEWAY_CLI } from '../lib/common.js';
import { connectHttp, startHttpServer } from '../lib/mcp-clients.js';
import {
  connectStdioProcess,
  EVERYTHING,
  gatewayHttpArgs,
  MCP_PROXY,
  SUPERGATEWAY,
  startPeer,
  untilReady,
  untilTool,
} from './support.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Reference: a Node process that copies bytes both ways and parses nothing (the floor of a relay). */
export const PIPE_RELAY = path.join(FIXTURES, 'pipe-relay.mjs');

/** Reference: the smallest MCP relay on the SDK, a low-level Server whose handlers call a Client. */
export const SDK_RELAY = path.join(FIXTURES, 'sdk-relay.mjs');

export const mcpProxyArgs = (port: any) => [
  MCP_PROXY,
  '--port',
  String(port),
  '--host',
  '127.0.0.1',
  '--server',
  'stream',
  '--no-eventStore',
  '--',
  process.execPath,
  EVERYTHING,
  'stdio',
];

export const supergatewayArgs = (port: any) => [
  SUPERGATEWAY,
  '--stdio',
  `${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} stdio`,
  '--outputTransport',
  'streamableHttp',
  '--stateful',
  '--port',
  String(port),
  '--logLevel',
  'none',
];

/**
 * The variants, in the order of the tables. `reference` ones are floors to read the others
 * against, not subjects of a target. `open` resolves with the connection (and the server, for HTTP).
 */
export const VARIANTS = [
  {
    key: 'direct',
    label: 'direct: server-everything over stdio',
    open: async () => ({ connection: await connectStdioProcess('direct', [EVERYTHING, 'stdio']) }),
  },
  {
    key: 'pipe',
    reference: true,
    label: 'reference: byte-copying Node relay, stdio',
    open: async () => ({
      connection: await connectStdioProcess('pipe', [PIPE_RELAY, EVERYTHING, 'stdio']),
    }),
  },
  {
    key: 'sdk-relay',
    reference: true,
    label: 'reference: minimal SDK relay (Server → Client), stdio',
    open: async () => ({
      connection: await connectStdioProcess('sdk-relay', [SDK_RELAY, EVERYTHING, 'stdio']),
    }),
  },
  {
    key: 'ap-stdio',
    label: 'Aperture over stdio (flat)',
    open: async (configs: any) => {
      const connection = await connectStdioProcess('ap-stdio', [
        GATEWAY_CLI,
        'serve',
        '--stdio',
        '--config',
        configs.everything,
      ]);
      await untilTool(connection.client, 'echo');
      return { connection };
    },
  },
  {
    key: 'sdk-http',
    reference: true,
    tool: 'noop',
    label: 'reference: bare SDK server over HTTP, `noop`, no downstream',
    open: async () => {
      const server = await startHttpServer([BASELINE_SERVER, '--http', '--port', '0']);
      return { server, connection: await connectHttp('sdk-http', server) };
    },
  },
  {
    key: 'ap-http',
    label: 'Aperture over Streamable HTTP (flat)',
    open: async (configs: any) => {
      const server = await startHttpServer(gatewayHttpArgs(configs.everything));
      await untilReady(server.url.replace(/\/mcp$/, ''), (r: any) => r.sources?.[0]?.state === 'connected');
      return { server, connection: await connectHttp('ap-http', server) };
    },
  },
  {
    key: 'mcp-proxy',
    label: 'mcp-proxy v6, Streamable HTTP',
    open: async () => {
      const server = await startPeer('mcp-proxy', mcpProxyArgs);
      return { server, connection: await connectHttp('mcp-proxy', server) };
    },
  },
  {
    key: 'supergw',
    label: 'supergateway v4 `--stateful`, Streamable HTTP',
    open: async () => {
      const server = await startPeer('supergw', supergatewayArgs);
      return { server, connection: await connectHttp('supergw', server) };
    },
  },
];
