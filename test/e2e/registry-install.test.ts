// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config holds ${secret:…} references on purpose.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackRegistry, startLoopbackRegistry } from '../fixtures/registry/loopback-registry.js';
import {
  MEMORY_INTEGRITY,
  MEMORY_VERSION,
  NPM_FILES,
  serverDocuments,
} from '../fixtures/registry/server-documents.js';
import { CLI, ROOT, startHttpGateway, stopProcess } from './gateway-process.js';

/*
 * `aperture registry search` and `aperture add NAME` as a user runs them, against a loopback MCP
 * Registry (nothing reaches the internet): the entry written into the watched config file, the
 * running gateway serving the added servers after its reload, and every refusal leaving the file
 * byte for byte as it was.
 */

const exec = promisify(execFile);
const FAKE_NPM = path.join(ROOT, 'test/fixtures/fake-npm.mjs');
const HTTP_FIXTURE = path.join(ROOT, 'test/fixtures/mcp/http-server.mjs');

let dir: string;
let registry: LoopbackRegistry;
let remote: ReturnType<typeof spawn>;
let remoteUrl: string;

const START = [
  '# The team gateway. Comments and order must survive `aperture add`.',
  'exposure: flat',
  'registries:',
  '  - { url: REGISTRY, name: loopback }',
  'servers: # downstream servers',
  '  # nothing yet',
  '',
].join('\n');

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-registry-'));
  remote = spawn(process.execPath, [HTTP_FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
  remoteUrl = await new Promise<string>((resolve, reject) => {
    remote.stdout?.on('data', (chunk: Buffer) => {
      const match = /listening (http:\/\/\S+)/.exec(chunk.toString());
      if (match?.[1]) resolve(`${match[1]}/mcp`);
    });
    remote.once('exit', () => reject(new Error('remote fixture exited')));
  });
  registry = await startLoopbackRegistry(serverDocuments(remoteUrl), 'ok', NPM_FILES);
});

afterAll(async () => {
  await registry?.[Symbol.asyncDispose]();
  if (remote) await stopProcess(remote);
  await rm(dir, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    // Only node's own directory: neither `uvx` nor `docker` is found, whatever this machine has.
    PATH: path.dirname(process.execPath),
    HOME: dir,
    APERTURE_NPM: FAKE_NPM,
    APERTURE_STATE_DIR: path.join(dir, 'state'),
    ...extra,
  };
}

async function cli(args: string[], cwd = dir): Promise<{ code: number; stdout: string; stderr: string }> {
  return exec(process.execPath, [CLI, ...args], { cwd, env: env() }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

async function freshConfig(name: string, registryUrl = registry.url): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, START.replace('REGISTRY', registryUrl));
  return file;
}

describe('registry search', { timeout: 60_000 }, () => {
  it('finds every server of the registry, paging through its cursor, with what each needs', async () => {
    const config = await freshConfig('search.yaml');
    const before = registry.requests.length;
    const { code, stdout, stderr } = await cli(['registry', 'search', '--config', config, '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { servers } = JSON.parse(stdout) as {
      servers: { name: string; runs: string[]; needs: { name: string; secret: boolean }[] }[];
    };
    expect(servers.map((s) => s.name)).toEqual([
      'io.github.modelcontextprotocol/server-memory',
      'io.example/everything-with-token',
      'io.example/echo-remote',
      'io.example/python-only',
      'io.example/nothing-runnable',
    ]);
    expect(servers[1]?.needs).toEqual([
      { name: 'EVERYTHING_API_TOKEN', secret: true, required: true, description: 'API token' },
    ]);
    expect(servers[2]?.runs).toEqual(['remote(streamable-http)']);
    expect(servers[2]?.needs.map((need) => need.name)).toEqual(['team']);
    // Two per page: the third request carries the cursor the second answered.
    const asked = registry.requests.slice(before);
    expect(asked.some((request) => request.includes('cursor=4'))).toBe(true);
  });

  it('narrows by query, in words', async () => {
    const config = await freshConfig('search-query.yaml');
    const { code, stdout } = await cli(['registry', 'search', 'python', '--config', config]);
    expect(code).toBe(0);
    expect(stdout).toContain('io.example/python-only  0.6.2  pypi');
    expect(stdout).not.toContain('server-memory');
  });
});

describe('aperture add', { timeout: 120_000 }, () => {
  it('adds npm, remote and secret-needing servers that a running gateway serves after its reload', async () => {
    const config = await freshConfig('aperture.yaml');
    Object.assign(process.env, env({ EVERYTHING_API_TOKEN: 'token-value-never-in-the-file' }));
    let gateway: Awaited<ReturnType<typeof startHttpGateway>> | undefined;
    try {
      gateway = await startHttpGateway(['--config', config], dir);
    } finally {
      for (const key of ['APERTURE_NPM', 'APERTURE_STATE_DIR', 'EVERYTHING_API_TOKEN'])
        delete process.env[key];
    }
    await using _gateway = gateway;
    const started = performance.now();
    const memory = await cli(['add', 'io.github.modelcontextprotocol/server-memory', '--config', config]);
    const addMs = performance.now() - started;
    expect(memory.stderr).toBe('');
    expect(memory.code).toBe(0);
    expect(memory.stdout).toContain('Added server "server-memory"');
    const everything = await cli([
      'add',
      'io.example/everything-with-token',
      '--as',
      'everything',
      '--env',
      'EVERYTHING_API_TOKEN=typed-on-the-command-line',
      '--config',
      config,
    ]);
    expect(everything.code).toBe(0);
    expect(everything.stdout).toContain('EVERYTHING_API_TOKEN is a secret: its --env value was not written');
    const echo = await cli(['add', 'io.example/echo-remote@1.4.0', '--env', 'team=blue', '--config', config]);
    expect(echo.code).toBe(0);

    const text = readFileSync(config, 'utf8');
    // The file as the user wrote it, then the entries.
    expect(text.startsWith(START.replace('REGISTRY', registry.url).split('\n  # nothing yet')[0] ?? '')).toBe(
      true,
    );
    expect(text).toContain('# The team gateway. Comments and order must survive `aperture add`.');
    expect(text).toContain('servers: # downstream servers');
    expect(text).toContain(`@modelcontextprotocol/server-memory@${MEMORY_VERSION}`);
    // The pinned version's integrity, read from the package registry, recorded beside the entry.
    expect(text).toContain(`from registry loopback (npm), integrity ${MEMORY_INTEGRITY}\n  server-memory:`);
    expect(text).toContain('EVERYTHING_API_TOKEN: ${secret:EVERYTHING_API_TOKEN}');
    expect(text).not.toContain('typed-on-the-command-line');
    expect(text).toContain(`url: ${remoteUrl}`);
    expect(text).toContain('X-Fixture: team-blue');
    // Whatever add installs starts in the scan trust tier.
    expect(text.match(/^ {4}trust: scan$/gm)).toHaveLength(3);
    expect(text).toContain(
      '# added by aperture add: io.example/echo-remote@1.4.0 from registry loopback (remote)',
    );

    const validate = await exec(process.execPath, [CLI, 'config', 'validate', config], {
      env: env({ EVERYTHING_API_TOKEN: 'x' }),
    });
    expect(validate.stdout).toContain('valid');

    // The running gateway reloaded the file and serves all three.
    const client = new Client({ name: 'registry-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway?.url}/mcp`)));
    try {
      let names: string[] = [];
      for (let i = 0; i < 300; i++) {
        names = (await client.listTools()).tools.map((tool) => tool.name);
        if (
          ['server-memory__', 'everything__', 'echo-remote__'].every((p) =>
            names.some((n) => n.startsWith(p)),
          )
        )
          break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(names).toContain('server-memory__create_entities');
      expect(names).toContain('everything__echo');
      expect(names).toContain('echo-remote__whoami');
      const whoami = await client.callTool({ name: 'echo-remote__whoami', arguments: {} });
      expect(JSON.stringify(whoami.structuredContent)).toContain('team-blue');
    } finally {
      await client.close();
    }
    console.log(`aperture add (npm server, loopback registry): ${addMs.toFixed(0)} ms`);

    // remove: the entry goes, the rest stays.
    const removed = await cli(['remove', 'everything', '--config', config]);
    expect(removed.code).toBe(0);
    const after = readFileSync(config, 'utf8');
    expect(after).not.toContain('everything-with-token');
    expect(after).toContain('server-memory');
    expect(after).toContain('# The team gateway.');
  });

  it('--dry-run prints the entry and changes nothing', async () => {
    const config = await freshConfig('dry.yaml');
    const before = readFileSync(config, 'utf8');
    const { code, stdout } = await cli([
      'add',
      'io.github.modelcontextprotocol/server-memory',
      '--dry-run',
      '--config',
      config,
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('Dry run: would add server "server-memory"');
    expect(stdout).toContain(`@modelcontextprotocol/server-memory@${MEMORY_VERSION}`);
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it('refuses, naming the cause and changing nothing: PyPI-only, nothing runnable, unknown name, a missing value, a taken key', async () => {
    const config = await freshConfig('refusals.yaml');
    await cli(['add', 'io.github.modelcontextprotocol/server-memory', '--as', 'memory', '--config', config]);
    const before = readFileSync(config, 'utf8');
    const cases: [string[], RegExp][] = [
      [
        ['io.example/python-only'],
        /can only be installed as pypi: Python packages run with uv \(`uvx`\), and `uvx` is not on PATH/,
      ],
      [['io.example/nothing-runnable'], /has no package or remote endpoint Aperture can run/],
      [
        ['io.example/no-such-server'],
        /not_found: No server "io.example\/no-such-server" in the registries \(loopback\)/,
      ],
      [['io.example/echo-remote@9.9.9'], /not_found: No server "io.example\/echo-remote" version 9.9.9/],
      [['io.example/echo-remote'], /needs "team"; pass --env team=VALUE/],
      [['io.github.modelcontextprotocol/server-memory', '--as', 'memory'], /already has a server "memory"/],
    ];
    for (const [args, message] of cases) {
      const { code, stderr } = await cli(['add', ...args, '--config', config]);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toMatch(message);
      expect(readFileSync(config, 'utf8')).toBe(before);
    }
    const unknownKey = await cli(['remove', 'nope', '--config', config]);
    expect(unknownKey.code).toBe(2);
    expect(unknownKey.stderr).toContain('has no server "nope"');
    expect(readFileSync(config, 'utf8')).toBe(before);
  });

  it.skipIf(!existsSync('/usr/bin/script'))(
    'on a terminal, asks for a value the server requires instead of failing (skipped without util-linux `script`)',
    async () => {
      const config = await freshConfig('prompted.yaml');
      // `script` gives the CLI a pseudo-terminal; the answer is typed on its stdin.
      const command = [process.execPath, CLI, 'add', 'io.example/echo-remote@1.4.0', '--config', config]
        .map((word) => `'${word}'`)
        .join(' ');
      const typed = await new Promise<string>((resolve, reject) => {
        const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], { cwd: dir, env: env() });
        let out = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('team: ')) child.stdin?.write('green\n');
        });
        child.once('error', reject);
        child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${out}`))));
      });
      expect(typed).toContain('team: ');
      expect(readFileSync(config, 'utf8')).toContain('X-Fixture: team-green');
    },
    30_000,
  );

  it('a registry that answers garbage or pages in a loop is a clear error; nothing written', async () => {
    await using garbage = await startLoopbackRegistry([], 'garbage');
    await using loop = await startLoopbackRegistry(serverDocuments('http://127.0.0.1:1/mcp'), 'loop');
    const garbageConfig = await freshConfig('garbage.yaml', garbage.url);
    const before = readFileSync(garbageConfig, 'utf8');
    const add = await cli(['add', 'io.example/echo-remote', '--config', garbageConfig]);
    expect(add.code).toBe(1);
    expect(add.stderr).toMatch(
      /backend_unavailable: registry loopback \(http:\/\/127\.0\.0\.1:\d+\) does not speak the MCP Registry API: .* is not JSON/,
    );
    expect(readFileSync(garbageConfig, 'utf8')).toBe(before);
    const search = await cli(['registry', 'search', '--config', garbageConfig]);
    expect(search.stderr).toMatch(/does not speak the MCP Registry API/);
    const loopConfig = await freshConfig('loop.yaml', loop.url);
    const looped = await cli(['registry', 'search', '--config', loopConfig]);
    expect(looped.code).toBe(1);
    expect(looped.stderr).toContain('its cursor "again" came back again (a paging loop)');
  });
});
