import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { CLI, startHttpGateway } from './gateway-process.js';

const require = createRequire(import.meta.url);
const MEMORY_SERVER = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** Starts `aperture serve --stdio` as a desktop client does: its own cwd and env, nothing else. */
async function stdioSession(cwd: string, env: Record<string, string>, args: string[] = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--stdio', ...args],
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client({ name: 'cwd-test', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the gateway did not start: ${(error as Error).message}\n${stderr}`);
  }
  return {
    client,
    stderr: () => stderr,
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  };
}

describe('a gateway started where ./.aperture cannot be created', { timeout: 60_000 }, () => {
  it('starts, keeping its state in $XDG_STATE_HOME/aperture', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-cwd-'));
    // Root can write anywhere; a file in the way stops mkdir for everyone.
    await writeFile(path.join(dir, '.aperture'), 'in the way');
    const xdg = path.join(dir, 'xdg');
    await using session = await stdioSession(dir, { XDG_STATE_HOME: xdg, HOME: dir });
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('run_tool');
    const run = await session.client.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'time:now', args: {} },
    });
    expect(run.isError ?? false).toBe(false);
    expect(existsSync(path.join(xdg, 'aperture', 'state.db'))).toBe(true);
  });

  it('reads APERTURE_CONFIG and APERTURE_STATE_DIR when started in / (Claude Desktop)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-env-'));
    const config = path.join(dir, 'gateway.json');
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [MEMORY_SERVER],
            env: { MEMORY_FILE_PATH: path.join(dir, 'm.jsonl') },
          },
        },
        exposure: 'flat',
      }),
    );
    const state = path.join(dir, 'state');
    await using session = await stdioSession('/', { APERTURE_CONFIG: config, APERTURE_STATE_DIR: state });
    const names = (await session.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('memory__read_graph');
    expect(existsSync(path.join(state, 'state.db'))).toBe(true);
    // Not beside the config, where state.dir would have put it.
    expect(existsSync(path.join(dir, '.aperture'))).toBe(false);
  });

  it('serve --state-dir DIR keeps state there; one it cannot create is a caller mistake (exit 2)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-flag-'));
    const chosen = path.join(dir, 'chosen');
    {
      await using gateway = await startHttpGateway(['--state-dir', chosen], dir);
      expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
      expect(existsSync(path.join(chosen, 'state.db'))).toBe(true);
    }
    await mkdir(path.join(dir, 'sub'));
    await writeFile(path.join(dir, 'sub', 'file'), '');
    const failed = await startHttpGateway(['--state-dir', path.join(dir, 'sub', 'file')], dir).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/exited with 2/);
    expect(failed).toMatch(/config_invalid: cannot open the state store/);
  });
});
