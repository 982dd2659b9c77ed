import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI,
  connectHttp,
  type DisposableClient,
  FIXTURE_CONFIG,
  ROOT,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';

const exec = promisify(execFile);

/** Runs the built CLI; resolves with exit code and both streams, never throws on non-zero. */
async function aperture(args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd: ROOT, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number | string; stdout: string; stderr: string; killed?: boolean };
    if (e.killed) throw new Error(`aperture ${args.join(' ')} did not exit: ${e.stderr}`);
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * How failures reach a user: the exit codes the README promises (2 for the caller's mistakes, bad
 * arguments to a tool included; 1 for faults), a taken port as one clear line, and hints that
 * name the surface's own way to find a tool.
 */
describe('errors as each surface tells them', () => {
  it('aperture run: bad arguments and unknown tools exit 2, a failing tool exits 1', async () => {
    const invalid = await aperture(['--config', FIXTURE_CONFIG, 'run', 'plantuml:encode', '--args', '{}']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^aperture: validation_input: /);

    const unknown = await aperture(['--config', FIXTURE_CONFIG, 'run', 'nope:nothing']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^aperture: tool_not_found: No tool "nope:nothing"/);
    expect(unknown.stderr).toContain('aperture search');
    expect(unknown.stderr).not.toContain('search_tools');
    const malformed = await aperture(['--config', FIXTURE_CONFIG, 'run', 'not-an-id']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('aperture search');
    expect(malformed.stderr).not.toContain('search_tools');

    const failing = await aperture(['--config', FIXTURE_CONFIG, 'run', 'fixture:fail']);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toMatch(/^aperture: execution_failed: /);
  });

  describe('port in use', () => {
    let taken: Server;
    let port: number;

    beforeAll(async () => {
      taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      port = (taken.address() as { port: number }).port;
    });

    afterAll(async () => {
      await new Promise((resolve) => taken.close(resolve));
    });

    it('is one clear line and exit code 2, not an internal error', async () => {
      const result = await aperture([
        'serve',
        '--config',
        FIXTURE_CONFIG,
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
      ]);
      expect(result.code).toBe(2);
      const lines = result.stderr.trim().split('\n');
      expect(lines.at(-1)).toBe(
        `aperture: config_invalid: port ${port} is already in use; choose another with --port`,
      );
      expect(result.stderr).not.toContain('internal');
      expect(result.stderr).not.toContain('EADDRINUSE');
    });
  });

  describe('hints for finding a tool', () => {
    let gateway: RunningGateway;
    let client: DisposableClient;

    beforeAll(async () => {
      gateway = await startHttpGateway(['--config', FIXTURE_CONFIG]);
      client = await connectHttp(gateway.url);
    });

    afterAll(async () => {
      await client?.[Symbol.asyncDispose]();
      await gateway?.[Symbol.asyncDispose]();
    });

    it('REST names GET /api/tools?q=', async () => {
      const res = await fetch(`${gateway.url}/api/tools/nope:nothing`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(res.status).toBe(404);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('tool_not_found');
      expect(error.message).toContain('GET /api/tools?q=');
      expect(error.message).not.toContain('search_tools');
    });

    it('REST does not send a client to list_toolsets, which it cannot call', async () => {
      const res = await fetch(`${gateway.url}/api/tools?toolset=nope`);
      expect(res.status).toBe(404);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      expect(error.message).toMatch(/^No toolset "nope"/);
      expect(error.message).not.toContain('list_toolsets');
    });

    it('MCP names search_tools', async () => {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'nope:nothing', args: {} },
      });
      expect(result.isError).toBe(true);
      const { error } = structured(result) as { error: { code: string; message: string } };
      expect(error.code).toBe('tool_not_found');
      expect(error.message).toContain('search_tools');
      expect(error.message).not.toContain('/api/tools');
    });
  });
});
