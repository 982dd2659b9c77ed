/** The latency variants of the downstream benchmark: Aperture, its peers and the reference relays (child programs in fixtures/). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASELINE_SERVER, GATEWAY_CLI, option } from '../lib/common.js';
import { connectHttp, connectHttpModern, startHttpServer } from '../lib/mcp-clients.js';
import {
  connectStdioProcess,
  EVERYTHING,
  MCP_PROXY,
  SUPERGATEWAY,
  startPeer,
  untilReady,
  untilTool,
} from './support.js';

export const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** Reference: a Node process that copies bytes both ways and parses nothing (the floor of a relay). */
export const PIPE_RELAY = path.join(FIXTURES, 'pipe-relay.mjs');

/** Reference: fixed JSON-RPC answers over node:http, no MCP library, no downstream (the floor of an HTTP relay). */
export const HTTP_FLOOR = path.join(FIXTURES, 'http-floor.mjs');

/** Reference: the smallest Streamable HTTP relay on the SDK v2, both wires (the floor of a relay on the SDK). */
export const SDK_HTTP_RELAY = path.join(FIXTURES, 'sdk-http-relay.mjs');

/** Reference: the smallest MCP relay on the SDK, a low-level Server whose handlers call a Client. */
export const SDK_RELAY = path.join(FIXTURES, 'sdk-relay.mjs');

/** Reference: the same relay on the SDK v2, the SDK the gateway runs. */
export const SDK_RELAY_V2 = path.join(FIXTURES, 'sdk-relay-v2.mjs');

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

/** An earlier build to run beside this one (`--compare-cli FILE`): its variants end in `-cmp`. */
export const COMPARE_CLI = option('compare-cli', '');

/** Aperture over stdio with `config` (`configs.everything` flat, `configs.everythingMeta` metatools). */
const apertureStdio = (key: string, config: string, cli: string, tool: string) => async (configs: any) => {
  const connection = await connectStdioProcess(key, [cli, 'serve', '--stdio', '--config', configs[config]]);
  await untilTool(connection.client, tool);
  return { connection };
};

/** Aperture over Streamable HTTP with `config`; the client speaks the 2025 sessions or 2026-07-28. */
const apertureHttp =
  (key: string, config: string, cli: string, wire: '2025' | '2026') => async (configs: any) => {
    const server = await startHttpServer([cli, 'serve', '--config', configs[config], '--port', '0']);
    await untilReady(server.url.replace(/\/mcp$/, ''), (r: any) => r.sources?.[0]?.state === 'connected');
    const connection =
      wire === '2026' ? await connectHttpModern(key, server) : await connectHttp(key, server);
    return { server, connection };
  };

/** Aperture's variants for one build: flat and `run_tool`, stdio and both HTTP wires. */
function apertureVariants(cli: string, suffix: string, note: string) {
  return [
    {
      key: `ap-stdio${suffix}`,
      label: `Aperture over stdio (flat)${note}`,
      open: apertureStdio(`ap-stdio${suffix}`, 'everything', cli, 'echo'),
    },
    {
      key: `ap-stdio-run${suffix}`,
      tool: 'run_tool',
      label: `Aperture over stdio, \`run_tool\`${note}`,
      open: apertureStdio(`ap-stdio-run${suffix}`, 'everythingMeta', cli, 'run_tool'),
    },
    {
      key: `ap-http${suffix}`,
      label: `Aperture over Streamable HTTP (flat), 2025 session${note}`,
      open: apertureHttp(`ap-http${suffix}`, 'everything', cli, '2025'),
    },
    {
      key: `ap-http-run${suffix}`,
      tool: 'run_tool',
      label: `Aperture over Streamable HTTP, \`run_tool\`, 2025 session${note}`,
      open: apertureHttp(`ap-http-run${suffix}`, 'everythingMeta', cli, '2025'),
    },
    {
      key: `ap-http26${suffix}`,
      label: `Aperture over Streamable HTTP (flat), 2026-07-28 stateless${note}`,
      open: apertureHttp(`ap-http26${suffix}`, 'everything', cli, '2026'),
    },
    {
      key: `ap-http26-run${suffix}`,
      tool: 'run_tool',
      label: `Aperture over Streamable HTTP, \`run_tool\`, 2026-07-28 stateless${note}`,
      open: apertureHttp(`ap-http26-run${suffix}`, 'everythingMeta', cli, '2026'),
    },
  ];
}

/** The keys of the variants that carry a target against the peers (HTTP) or the direct call (stdio). */
export const HTTP_SUBJECTS = ['ap-http', 'ap-http-run', 'ap-http26', 'ap-http26-run'];
/** HTTP floors, read against the faster peer too: no relay can be faster than its wire's floor. */
export const HTTP_FLOORS = ['http-floor', 'http-floor26', 'sdk-http-relay', 'sdk-http-relay26'];
export const STDIO_SUBJECTS = ['ap-stdio', 'ap-stdio-run'];
/**
 * A reference HTTP server (`node ...args`) twice: its 2025 session (`key`) and 2026-07-28 (`key26`),
 * each in a process of its own.
 */
function onBothWires(key: string, label: string, note: string, args: readonly string[]) {
  return (['2025', '2026'] as const).map((wire) => ({
    key: wire === '2026' ? `${key}26` : key,
    reference: true,
    label: `${label}, ${wire === '2026' ? '2026-07-28' : '2025 session'}`,
    note,
    open: async () => {
      const server = await startHttpServer(args);
      const connection =
        wire === '2026' ? await connectHttpModern(`${key}26`, server) : await connectHttp(key, server);
      return { server, connection };
    },
  }));
}

/** stdio relays read against the direct call too: what a relay on the SDK costs without the gateway. */
export const STDIO_REFERENCES = ['pipe', 'sdk-relay', 'sdk-relay-v2'];

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
    note: 'a floor: no relay over stdio answers faster',
    open: async () => ({
      connection: await connectStdioProcess('pipe', [PIPE_RELAY, EVERYTHING, 'stdio']),
    }),
  },
  {
    key: 'sdk-relay',
    reference: true,
    label: 'reference: minimal SDK relay (Server → Client), stdio',
    note: 'the smallest relay on the SDK v1',
    open: async () => ({
      connection: await connectStdioProcess('sdk-relay', [SDK_RELAY, EVERYTHING, 'stdio']),
    }),
  },
  {
    key: 'sdk-relay-v2',
    reference: true,
    label: 'reference: minimal SDK v2 relay (Server → Client), stdio',
    note: 'the smallest relay on the SDK the gateway runs',
    open: async () => ({
      connection: await connectStdioProcess('sdk-relay-v2', [SDK_RELAY_V2, EVERYTHING, 'stdio']),
    }),
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
  ...onBothWires(
    'http-floor',
    'reference: fixed answers over node:http, no MCP, no downstream',
    'a floor: no relay on this wire answers faster',
    [HTTP_FLOOR],
  ),
  ...onBothWires(
    'sdk-http-relay',
    'reference: minimal SDK v2 relay over HTTP (Server → Client)',
    'the smallest relay on the SDK the gateway runs',
    [SDK_HTTP_RELAY, EVERYTHING, 'stdio'],
  ),
  ...apertureVariants(GATEWAY_CLI, '', ''),
  ...(COMPARE_CLI ? apertureVariants(COMPARE_CLI, '-cmp', ' [compared build]') : []),
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
