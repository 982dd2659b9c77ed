import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

/**
 * `aperture serve` on `config`, written as `aperture.yaml` (JSON) into a temporary folder, once
 * `/readyz` answers 200 (every server tried); disposing stops it and removes the folder.
 */
export async function startReadyGateway(
  config: Record<string, unknown>,
  prefix = 'aperture-e2e-',
): Promise<RunningGateway & { dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  const file = path.join(dir, 'aperture.yaml');
  await writeFile(file, JSON.stringify(config));
  const gateway = await startHttpGateway(['--config', file]);
  const deadline = Date.now() + 30_000;
  while ((await fetch(`${gateway.url}/readyz`)).status !== 200) {
    if (Date.now() > deadline) {
      await gateway[Symbol.asyncDispose]();
      throw new Error(`gateway not ready:\n${gateway.stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    ...gateway,
    dir,
    async [Symbol.asyncDispose]() {
      await gateway[Symbol.asyncDispose]();
      await rm(dir, { recursive: true, force: true });
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
