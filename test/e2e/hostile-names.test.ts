import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasTerminalControls } from '../../src/foundation/util/terminal-safe.js';
import { CLI, ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

const exec = promisify(execFile);
const FIXTURE = path.join(ROOT, 'test/fixtures/mcp/hostile-names-server.mjs');

/**
 * A downstream server that names tools with terminal escapes, invisible and bidirectional
 * characters, lists `a:b` beside `a_b`, and writes escapes into descriptions, its version and
 * stderr: none of it reaches the operator's terminal as anything but visible text, the unusable
 * names are refused (the rest serve), and `a:b` and `a_b` both stay reachable.
 */
describe('hostile downstream names and text', () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-hostile-'));
    config = path.join(dir, 'aperture.json');
    await writeFile(
      config,
      JSON.stringify({
        tools: { builtin: false },
        servers: { hostile: { command: process.execPath, args: [FIXTURE], cwd: path.dirname(FIXTURE) } },
        exposure: { mode: 'metatools' },
      }),
    );
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const cli = async (...args: string[]) => {
    const result = await exec(process.execPath, [CLI, ...args, '--config', config], { cwd: dir }).catch(
      (error: { stdout: string; stderr: string; code: number }) => error,
    );
    return { stdout: result.stdout, stderr: result.stderr };
  };

  it('`aperture list` shows no control character, refuses the unusable names, keeps a:b and a_b apart', async () => {
    const { stdout, stderr } = await cli('list');
    expect(hasTerminalControls(stdout, true)).toBe(false);
    expect(hasTerminalControls(stderr, true)).toBe(false);
    const ids = stdout
      .trim()
      .split('\n')
      .map((line) => line.split('  ')[0]);
    expect(ids).toContain('hostile:a_b');
    expect(ids.filter((id) => /^hostile:a_b_[0-9a-f]{8}$/.test(id ?? ''))).toHaveLength(1);
    expect(ids.some((id) => /evil|zero|rtl/.test(id ?? ''))).toBe(false);
    expect(stdout).toContain('\\u001b[2J');
    // The refusal names the tool, escaped.
    expect(stderr).toMatch(/control, invisible or bidirectional/);
  }, 30_000);

  it('`aperture search` and `describe` escape what the description holds', async () => {
    const search = await cli('search', 'paints red link');
    expect(search.stdout).toContain('hostile:painter');
    expect(hasTerminalControls(search.stdout, true)).toBe(false);
    const summary = await cli('describe', 'hostile:painter', '--detail', 'summary');
    expect(summary.stdout).toContain('\\u202egnp.exe');
    expect(hasTerminalControls(summary.stdout, true)).toBe(false);
    const full = await cli('describe', 'hostile:painter', '--detail', 'full');
    expect(hasTerminalControls(full.stdout, true)).toBe(false);
    // Still JSON, still the same text once parsed.
    expect(JSON.parse(full.stdout).tool.description).toContain('\u202egnp.exe \u009b1m');
  }, 30_000);

  it('`aperture doctor` shows the server’s version and stderr escaped', async () => {
    const doctor = await cli('doctor');
    expect(doctor.stdout).toContain('hostile');
    expect(hasTerminalControls(doctor.stdout, true)).toBe(false);
    expect(hasTerminalControls(doctor.stderr, true)).toBe(false);
  }, 30_000);

  describe('served', () => {
    let gateway: RunningGateway;
    let client: Client;

    beforeAll(async () => {
      gateway = await startHttpGateway(['--config', config], dir);
      client = new Client({ name: 'e2e-hostile', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    }, 30_000);

    afterAll(async () => {
      await client?.close().catch(() => {});
      await gateway?.[Symbol.asyncDispose]();
    });

    it('reaches a:b and a_b each under its own id, and refuses the unusable names', async () => {
      let listed: { id: string }[] = [];
      for (let attempt = 0; attempt < 100 && listed.length === 0; attempt++) {
        const answer = await client.callTool({ name: 'list_tools', arguments: { namespace: 'hostile' } });
        listed = (answer.structuredContent as { tools: { id: string }[] }).tools;
        if (listed.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const ids = listed.map((tool) => tool.id);
      const hashed = ids.find((id) => /^hostile:a_b_[0-9a-f]{8}$/.test(id));
      expect(hashed).toBeDefined();
      expect(ids.some((id) => /evil|zero|rtl/.test(id))).toBe(false);
      const reached = async (id: string) =>
        (
          (await client.callTool({ name: 'run_tool', arguments: { tool_id: id, args: {} } }))
            .structuredContent as {
            reached: string;
          }
        ).reached;
      expect(await reached('hostile:a_b')).toBe('a_b');
      expect(await reached(String(hashed))).toBe('a:b');
    }, 30_000);
  });
});
