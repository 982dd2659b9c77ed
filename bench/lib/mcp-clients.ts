/**
 * MCP SDK clients and gateway processes for the benchmarks that talk to a running gateway: an
 * HTTP server started as a tracked child, SDK clients over Streamable HTTP (one session each) or
 * stdio (one server process each). Everything started here is tracked (see common.ts) and ends
 * with the benchmark.
 */

import type { ChildProcess, SpawnOptions } from 'node:child_process';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ROOT, spawnTracked, stopChild, trackChild, waitForStderr } from './common.js';

/** Spawns an HTTP server (`node ...args`) and waits for its "listening on URL" line. */
/** A server started by `startHttpServer`. */
export interface HttpServer {
  url: string;
  pid: number | undefined;
  child: ChildProcess;
  stop: () => Promise<void>;
}

/** A connected SDK client and the pid of the server process behind it. */
export interface Connection {
  client: Client;
  pid: number | undefined;
  close: () => Promise<void>;
}

export async function startHttpServer(
  args: readonly string[],
  options: SpawnOptions & { timeoutMs?: number; graceMs?: number } = {},
): Promise<HttpServer> {
  const { timeoutMs, graceMs, ...spawnOptions } = options;
  const child = spawnTracked(process.execPath, args, { cwd: ROOT, ...spawnOptions });
  child.stdout?.resume();
  try {
    const { match } = await waitForStderr(child, /listening on (http:\/\/\S+)/, timeoutMs ?? 30000);
    return { url: match[1]!, pid: child.pid, child, stop: () => stopChild(child, graceMs ?? 5000) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** Connects an SDK client (one session) to a running HTTP server's MCP endpoint. */
export async function connectHttp(
  label: string,
  server: { url: string; pid?: number | undefined },
): Promise<Connection> {
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const client = new Client({ name: `bench-${label}`, version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    pid: server.pid,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    },
  };
}

/**
 * Connects an SDK v2 client speaking the 2026-07-28 revision (no session: each request carries
 * its own envelope) to a running HTTP server's MCP endpoint.
 */
export async function connectHttpModern(
  label: string,
  server: { url: string; pid?: number | undefined },
): Promise<{ client: ModernClient; pid: number | undefined; close: () => Promise<void> }> {
  const client = new ModernClient(
    { name: `bench-${label}`, version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new ModernHttpTransport(new URL(server.url)));
  return { client, pid: server.pid, close: () => client.close().catch(() => {}) };
}

/**
 * Connects an SDK client over stdio to a server process (`node ...args` unless `command` says
 * otherwise) the transport spawns. `env` is added to the SDK's default environment; `killSignal`
 * is what the process gets if the benchmark dies (SIGTERM lets a gateway end its own servers).
 */
export async function connectStdio(
  label: string,
  args: string[],
  {
    env,
    command = process.execPath,
    killSignal,
  }: { env?: Record<string, string> | undefined; command?: string; killSignal?: NodeJS.Signals } = {},
): Promise<Connection> {
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: ROOT,
    stderr: 'pipe',
    ...(env ? { env: { ...getDefaultEnvironment(), ...env } } : {}),
  });
  // Drain the server's stderr (logs) so it can never fill the pipe and stall the server.
  transport.stderr?.on('data', () => {});
  const client = new Client({ name: `bench-${label}`, version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close().catch(() => {});
    throw error;
  }
  const pid = transport.pid ?? undefined;
  const untrack = pid ? trackChild(pid, killSignal) : () => {};
  return {
    client,
    pid,
    close: async () => {
      await client.close().catch(() => {});
      untrack();
    },
  };
}
