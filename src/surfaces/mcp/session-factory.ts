import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

/** Makes a fresh MCP server for one client session; `dispose` releases what it subscribed to. */
export type McpSessionFactory = () => { server: Server; dispose: () => void };
