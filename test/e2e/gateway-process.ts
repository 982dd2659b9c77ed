import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(ROOT, 'dist/cli/main.js');
export const FIXTURE_CONFIG = path.join(ROOT, 'test/fixtures/gateway.yaml');

/** A gateway started as a user starts it (`aperture serve`), stopped on dispose. */
export interface RunningGateway extends AsyncDisposable {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

/** Starts `aperture serve --port 0 …` and waits until it listens. */
export async function startHttpGateway(args: string[] = [], cwd = ROOT): Promise<RunningGateway> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${stderr}`)), 15_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /listening on (http:\/\/\S+)\/mcp/.exec(stderr);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      await stopProcess(child);
    },
  };
}

/** SIGTERM, then SIGKILL after a grace period; resolves when the process is gone. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}

/** An SDK client, closed on dispose. */
export type DisposableClient = Client & AsyncDisposable;

function disposable(client: Client): DisposableClient {
  return Object.assign(client, {
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  });
}

export async function connectHttp(baseUrl: string, path = '/mcp'): Promise<DisposableClient> {
  const client = new Client({ name: 'e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}${path}`)));
  return disposable(client);
}

export async function connectSse(baseUrl: string): Promise<DisposableClient> {
  const client = new Client({ name: 'e2e-sse', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`${baseUrl}/sse`)));
  return disposable(client);
}

export async function connectStdio(args: string[] = ['--config', FIXTURE_CONFIG]): Promise<DisposableClient> {
  const client = new Client({ name: 'e2e-stdio', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'serve', '--stdio', ...args],
      cwd: ROOT,
      stderr: 'pipe',
    }),
  );
  return disposable(client);
}

/** structuredContent of a tool result, typed loosely for assertions. */
export function structured(result: unknown): Record<string, any> {
  return (result as { structuredContent: Record<string, any> }).structuredContent;
}
