import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive as alive } from '../support/fixture-servers.js';
import { CLI, ROOT, stopProcess } from './gateway-process.js';

const exec = promisify(execFile);

const FAULTY = path.join(ROOT, 'test/fixtures/mcp/faulty-server.mjs');
const HTTP_FIXTURE = path.join(ROOT, 'test/fixtures/mcp/http-server.mjs');
/** The tools faulty-server.mjs lists (its header): echo, add, sleep, crash, noisy, big, fail, add_tool, remove_tool, progress, pid, spawn_child. */
const FAULTY_TOOLS = 12;
/** http-server.mjs: echo, whoami, forget_sessions, sleep. */
const HTTP_TOOLS = 4;

/** Runs the built CLI; resolves with exit code and both streams, never throws on non-zero. */
async function aperture(args: string[]) {
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('aperture doctor', () => {
  let dir: string;
  let httpServer: ChildProcess | undefined;
  let httpUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-doctor-'));
    const child = spawn(process.execPath, [HTTP_FIXTURE], { stdio: ['ignore', 'pipe', 'pipe'] });
    httpServer = child;
    httpUrl = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`http fixture did not start: ${out}`)), 15_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening (http:\/\/\S+)/.exec(out);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`http fixture exited with ${code}: ${out}`));
      });
    });
  });

  afterAll(async () => {
    if (httpServer) await stopProcess(httpServer);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reports a good and a broken stdio server, exits 1 naming the broken one, and stops the processes', async () => {
    const marks = path.join(dir, 'marks.jsonl');
    const config = path.join(dir, 'mixed.json');
    await writeFile(
      config,
      JSON.stringify({
        servers: {
          good: {
            command: 'node',
            args: [FAULTY],
            env: { FAULTY_PAGE_SIZE: '3', FAULTY_MARK_FILE: marks },
            // It reports its host pid and writes marks anywhere: unconfined (see fixture-servers.ts).
            sandbox: 'off',
          },
          broken: { command: '/nonexistent/cmd' },
          off: { command: 'node', args: [FAULTY], enabled: false },
        },
      }),
    );
    const result = await aperture(['doctor', '--config', config, '--timeout', '15000']);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/doctor: 1 of 2 servers failed: broken$/m);

    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^SERVER\s+TRANSPORT\s+PROTOCOL\s+STATE\s+CONNECT\s+LIST\s+TOOLS/);
    const good = lines.find((line) => line.startsWith('good '));
    expect(good).toMatch(
      new RegExp(
        `^good\\s+stdio\\s+2025-11-25\\s+ok\\s+\\d+ ms\\s+\\d+ ms\\s+${FAULTY_TOOLS}\\s+faulty-server 1\\.0\\.0`,
      ),
    );
    const broken = lines.find((line) => line.startsWith('broken '));
    expect(broken).toMatch(/^broken\s+stdio\s+-\s+FAILED\s+\d+ ms\s+-\s+-/);
    expect(broken).toContain('/nonexistent/cmd');
    expect(lines.find((line) => line.startsWith('off '))).toMatch(/^off\s+stdio\s+-\s+skipped/);
    // One line per server, printed as each check ended (cli-feedback.test.ts checks the timing).
    expect(
      lines
        .slice(1, 4)
        .map((line) => line.split(/\s+/)[0])
        .sort(),
    ).toEqual(['broken', 'good', 'off']);
    expect(result.stdout).toMatch(/3 servers: 1 ok, 1 failed, 1 skipped; 12 tools/);

    // The good server's process was stopped before doctor returned.
    const started = (await readFile(marks, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; pid?: number })
      .filter((mark) => mark.event === 'started');
    expect(started).toHaveLength(1);
    expect(alive(started[0]!.pid!)).toBe(false);
  });

  it('keeps the stderr lines that say why (npm E404), and says when a server wrote non-JSON to stdout', async () => {
    const npm404 = path.join(dir, 'npm-404.mjs');
    await writeFile(
      npm404,
      `const lines = [
        'npm error code E404',
        'npm error 404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-nope - Not found',
        'npm error 404',
        "npm error 404  '@modelcontextprotocol/server-nope@*' is not in this registry.",
        'npm error 404',
        'npm error 404 Note that you can also install from a',
        'npm error 404 tarball, folder, http url, or git url.',
        'npm error A complete log of this run can be found in: /root/.npm/_logs/2026-11-24T09_00_00_000Z-debug-0.log',
      ];
      process.stderr.write(lines.join('\\n') + '\\n', () => process.exit(1));\n`,
    );
    const banner = path.join(dir, 'banner.mjs');
    await writeFile(
      banner,
      `console.log('Server running on stdio, ready!');\nawait import(${JSON.stringify(FAULTY)});\n`,
    );
    const bannerDies = path.join(dir, 'banner-dies.mjs');
    await writeFile(
      bannerDies,
      `console.log('Starting up (v1.2)...');\nprocess.stdout.write('', () => process.exit(3));\n`,
    );
    const config = path.join(dir, 'noisy.json');
    await writeFile(
      config,
      JSON.stringify({
        servers: {
          missing: { command: 'node', args: [npm404] },
          chatty: { command: 'node', args: [banner] },
          dies: { command: 'node', args: [bannerDies] },
        },
      }),
    );
    const result = await aperture(['doctor', '--config', config, '--timeout', '15000', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      servers: { name: string; state: string; error: { message: string } | null; notes?: string[] }[];
    };
    const byName = new Map(report.servers.map((s) => [s.name, s]));
    const missing = byName.get('missing')!.error!.message;
    expect(missing).toContain('E404');
    expect(missing).toContain(
      '404 Not Found - GET https://registry.npmjs.org/@modelcontextprotocol%2fserver-nope',
    );
    expect(missing).not.toContain('A complete log of this run');
    // The SDK's "MCP error -32000: " prefix says nothing a user can act on.
    expect(missing).toMatch(/^cannot connect to node: Connection closed/);
    expect(byName.get('chatty')?.state).toBe('ok');
    expect(byName.get('chatty')?.notes?.join(' ')).toMatch(
      /wrote non-JSON to stdout.*"Server running on stdio, ready!"/,
    );
    expect(byName.get('dies')!.error!.message).toMatch(
      /wrote non-JSON to stdout.*"Starting up \(v1\.2\)\.\.\."/,
    );
    // How the process ended comes from the transport, for a server that died while connecting.
    expect(byName.get('dies')!.error!.message).toContain('process exited with code 3');
    expect(missing).toContain('process exited with code 1');

    const table = await aperture(['doctor', '--config', config, '--timeout', '15000']);
    expect(table.stdout).toMatch(/^missing\s+stdio\s+-\s+FAILED.*E404/m);
    expect(table.stdout).toMatch(/chatty.*wrote non-JSON to stdout/);
  });

  it('fails a server whose tools/list never stops paging as the gateway does, naming it', async () => {
    const config = path.join(dir, 'endless.json');
    await writeFile(
      config,
      JSON.stringify({
        servers: {
          endless: { command: 'node', args: [path.join(ROOT, 'test/fixtures/mcp/endless-list-server.mjs')] },
        },
      }),
    );
    const result = await aperture(['doctor', '--config', config, '--timeout', '30000', '--json']);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      servers: {
        name: string;
        state: string;
        failedStep: string | null;
        tools: number | null;
        error: unknown;
      }[];
    };
    expect(report.servers).toHaveLength(1);
    expect(report.servers[0]).toMatchObject({
      name: 'endless',
      state: 'failed',
      failedStep: 'list',
      tools: null,
    });
    // The very message the gateway's /readyz shows for the same server (downstream-faults.test.ts).
    expect(report.servers[0]?.error).toEqual({
      code: 'backend_unavailable',
      message:
        'server "endless": tools/list still returned a nextCursor after 1000 pages (1000 tools); listing abandoned',
    });
  });

  it('exits 0 when every server answers; --json carries transports and tool counts', async () => {
    const config = path.join(dir, 'good.json');
    await writeFile(
      config,
      JSON.stringify({
        servers: {
          local: { command: 'node', args: [FAULTY], env: { FAULTY_PAGE_SIZE: '3' } },
          remote: { url: `${httpUrl}/mcp` },
        },
        mcpServers: {
          legacy: { url: `${httpUrl}/sse`, transport: 'sse' },
        },
      }),
    );
    const result = await aperture(['doctor', '--config', config, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.config).toBe(config);
    expect(
      report.servers.map((s: any) => ({
        name: s.name,
        transport: s.transport,
        state: s.state,
        tools: s.tools,
      })),
    ).toEqual([
      { name: 'local', transport: 'stdio', state: 'ok', tools: FAULTY_TOOLS },
      { name: 'remote', transport: 'streamable-http', state: 'ok', tools: HTTP_TOOLS },
      { name: 'legacy', transport: 'sse', state: 'ok', tools: HTTP_TOOLS },
    ]);
    for (const server of report.servers) {
      expect(server.connectMs).toBeGreaterThanOrEqual(0);
      expect(server.listMs).toBeGreaterThanOrEqual(0);
      expect(server.error).toBeNull();
    }
    expect(report.servers[1].server).toEqual({ name: 'http-fixture', version: '1.0.0' });
    expect(report.summary).toMatchObject({
      servers: 3,
      checked: 3,
      ok: 3,
      failed: 0,
      skipped: 0,
      tools: FAULTY_TOOLS + 2 * HTTP_TOOLS,
    });
  });

  it('says so when no servers are configured, and exits 0', async () => {
    const config = path.join(dir, 'empty.yaml');
    await writeFile(config, 'server: { port: 9000 }\n');
    const result = await aperture(['doctor', '--config', config]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/No MCP servers configured/);
  });

  it('refuses a bad --timeout as a usage error', async () => {
    const result = await aperture(['doctor', '--timeout', 'soon']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--timeout must be an integer');
  });
});
