#!/usr/bin/env node
/**
 * The baseline for the gateway benchmarks: a bare MCP server built on the official SDK alone,
 * exposing one no-op tool (`noop`, returning `{}` as structuredContent plus its JSON as text, the
 * same result the gateway gives for `fixture:noop`). No catalog, no validation, no pipeline: what
 * is left is the cost of the SDK and the transport, which is the floor the gateway is measured
 * against.
 *
 *   node bench/baseline-noop-server.mjs --stdio            MCP on stdin/stdout
 *   node bench/baseline-noop-server.mjs --http [--port N]  stateful Streamable HTTP on node:http,
 *                                                          one Server instance per session
 *
 * In HTTP mode it prints `Baseline listening on http://127.0.0.1:PORT/mcp` on stderr (the same
 * shape as the gateway's line) and answers `GET /readyz` with 200, so start-up can be timed alike.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const NOOP_TOOL = {
  name: 'noop',
  description: 'Do nothing and return an empty object.',
  inputSchema: { type: 'object', properties: {} },
};

/** One low-level SDK server (the class the gateway's sessions use too) with the no-op tool. */
function createNoopServer() {
  const server = new Server({ name: 'baseline-noop', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [NOOP_TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name !== NOOP_TOOL.name) {
      return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${request.params.name}` }] };
    }
    return { structuredContent: {}, content: [{ type: 'text', text: '{}' }] };
  });
  return server;
}

function parseArgs(argv) {
  const options = { mode: 'stdio', host: '127.0.0.1', port: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--stdio') options.mode = 'stdio';
    else if (arg === '--http') options.mode = 'http';
    else if (arg === '--port') options.port = Number(argv[++i]);
    else if (arg === '--host') options.host = argv[++i];
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

async function serveStdio() {
  const server = createNoopServer();
  const transport = new StdioServerTransport();
  await server.connect(transport);
  // The client closing stdin ends the process, as it does for the gateway.
  process.stdin.once('end', () => process.exit(0));
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

function sendJsonRpcError(res, status, code, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function serveHttp(host, port) {
  /** @type {Map<string, StreamableHTTPServerTransport>} */
  const transports = new Map();

  const handleMcp = async (req, res) => {
    const sessionId = req.headers['mcp-session-id'];
    if (req.method !== 'POST') {
      const transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
      if (!transport) return sendJsonRpcError(res, sessionId ? 404 : 400, -32001, 'Session not found');
      return transport.handleRequest(req, res);
    }
    let body;
    try {
      body = await readJson(req);
    } catch {
      return sendJsonRpcError(res, 400, -32700, 'Parse error');
    }
    if (typeof sessionId === 'string') {
      const transport = transports.get(sessionId);
      if (!transport) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      return transport.handleRequest(req, res, body);
    }
    if (!isInitializeRequest(body)) return sendJsonRpcError(res, 400, -32600, 'Send initialize first');
    const server = createNoopServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
      server.close().catch(() => {});
    };
    await server.connect(transport);
    return transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/mcp') {
      handleMcp(req, res).catch((error) => {
        if (!res.headersSent) sendJsonRpcError(res, 500, -32603, String(error?.message ?? error));
        else res.end();
      });
      return;
    }
    if (path === '/readyz' || path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ready":true}');
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, resolve);
  });
  const address = http.address();
  process.stderr.write(`Baseline listening on http://${host}:${address.port}/mcp\n`);

  const shutdown = () => {
    for (const transport of transports.values()) transport.close().catch(() => {});
    http.closeAllConnections?.();
    http.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

const options = parseArgs(process.argv.slice(2));
if (options.mode === 'http') await serveHttp(options.host, options.port);
else await serveStdio();
