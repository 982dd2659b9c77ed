// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the files use ${…} references on purpose.
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { normaliseNamespace } from '../foundation/schema/config-values.js';
import { parseDotenv } from './client-compat.js';
import { loadConfig } from './load-config.js';

/*
 * Config files in the shapes other MCP clients write them, pasted (or pointed at) as they are.
 * Each shape is the client's documented format.
 */

let dir: string;

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'aperture-clients-')));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function load(name: string, content: unknown, env: Record<string, string> = {}) {
  const file = join(dir, name);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return loadConfig({ cwd: dir, file, env: { HOME: dir, ...env } });
}

async function failure(name: string, content: unknown): Promise<GatewayError> {
  const error = await load(name, content).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (error instanceof GatewayError) return error;
  throw new Error(`expected a GatewayError, got ${String(error)}`);
}

describe("pasting other clients' mcpServers blocks", () => {
  it('Claude Desktop (claude_desktop_config.json)', async () => {
    const { config } = await load('claude_desktop_config.json', {
      mcpServers: {
        filesystem: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'],
        },
        memory: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-memory'],
          env: { MEMORY_FILE_PATH: '/tmp/m.json' },
        },
      },
    });
    expect(config.servers.filesystem).toMatchObject({
      kind: 'stdio',
      command: 'npx',
      namespace: 'filesystem',
    });
    expect(config.servers.memory).toMatchObject({ env: { MEMORY_FILE_PATH: '/tmp/m.json' } });
  });

  it('Cursor (~/.cursor/mcp.json): envFile is loaded into env, env given in the entry wins', async () => {
    await writeFile(
      join(dir, '.env'),
      '# secrets\nexport API_KEY="from file"\nOTHER=1 # comment\nSHARED=file\n',
    );
    const { config } = await load('.cursor/mcp.json', {
      mcpServers: {
        api: {
          command: 'node',
          args: ['server.js'],
          env: { SHARED: 'entry' },
          envFile: '${workspaceFolder}/../.env',
        },
        web: { url: 'http://127.0.0.1:3000/mcp', headers: { 'X-Key': '${env:KEY:-none}' } },
      },
    });
    expect(config.servers.api).toMatchObject({ env: { API_KEY: 'from file', OTHER: '1', SHARED: 'entry' } });
    expect(config.servers.api).not.toHaveProperty('envFile');
    expect(config.servers.web).toMatchObject({ kind: 'remote', headers: { 'X-Key': 'none' } });
  });

  it('Cursor: a missing envFile is a config error naming the entry', async () => {
    const error = await failure('mcp.json', {
      mcpServers: { api: { command: 'node', envFile: '.env.missing' } },
    });
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('mcpServers.api.envFile: cannot read');
  });

  it('Cline / Roo (cline_mcp_settings.json): disabled, timeout in seconds, autoApprove, alwaysAllow', async () => {
    const loaded = await load('cline_mcp_settings.json', {
      mcpServers: {
        github: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-github'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'x' },
          disabled: false,
          autoApprove: ['search_repositories'],
          timeout: 120,
        },
        off: { command: 'npx', args: ['x'], disabled: true, alwaysAllow: [] },
        remote: { url: 'http://127.0.0.1:3000/sse', type: 'sse', disabled: false, timeout: 1.5 },
        streaming: { url: 'http://127.0.0.1:3000/mcp', type: 'streamableHttp' },
      },
    });
    const { github, off, remote } = loaded.config.servers;
    expect(github).toMatchObject({ enabled: true, timeoutMs: 120_000 });
    expect(github).not.toHaveProperty('autoApprove');
    expect(github).not.toHaveProperty('timeout');
    expect(off).toMatchObject({ enabled: false });
    expect(off).not.toHaveProperty('disabled');
    expect(remote).toMatchObject({ enabled: true, timeoutMs: 1500, transport: 'sse' });
    expect(loaded.config.servers.streaming).toMatchObject({ transport: 'streamable-http' });
    expect(loaded.notices).toEqual([
      '"autoApprove" is ignored (mcpServers.github): Aperture runs tools without asking; limit them with toolsets or overrides (hidden: true)',
      '"alwaysAllow" is ignored (mcpServers.off): Aperture runs tools without asking; limit them with toolsets or overrides (hidden: true)',
    ]);
  });

  it('Cline: a key given in both spellings is refused, naming it', async () => {
    const both = await failure('a.json', {
      mcpServers: { s: { command: 'x', timeout: 5, timeoutMs: 5000 } },
    });
    expect(both.message).toContain(
      'mcpServers.s.timeout: means the same as "timeoutMs"; set only one of them',
    );
    const enabled = await failure('b.json', {
      mcpServers: { s: { command: 'x', enabled: true, disabled: true } },
    });
    expect(enabled.message).toContain('mcpServers.s.disabled: means the same as "enabled"');
    const bad = await failure('c.json', { mcpServers: { s: { command: 'x', timeout: -1 } } });
    expect(bad.message).toContain('mcpServers.s.timeout');
  });

  it('Windsurf (mcp_config.json): serverUrl is the url', async () => {
    const { config } = await load('mcp_config.json', {
      mcpServers: {
        remote: { serverUrl: 'http://127.0.0.1:3000/mcp', headers: { Authorization: 'Bearer t' } },
        local: { command: 'npx', args: ['-y', 'x'], disabled: true },
      },
    });
    expect(config.servers.remote).toMatchObject({
      kind: 'remote',
      url: 'http://127.0.0.1:3000/mcp',
      transport: 'auto',
    });
    expect(config.servers.local).toMatchObject({ enabled: false });
    const both = await failure('w.json', {
      mcpServers: { r: { url: 'http://127.0.0.1/a', serverUrl: 'http://127.0.0.1/b' } },
    });
    expect(both.message).toContain('mcpServers.r.serverUrl: means the same as "url"');
  });

  it('VS Code (.vscode/mcp.json): servers + type, inputs ignored with one info line', async () => {
    const loaded = await load('.vscode/mcp.json', {
      inputs: [{ type: 'promptString', id: 'api-key', description: 'API key', password: true }],
      servers: {
        memory: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        github: { type: 'http', url: 'http://127.0.0.1:3000/mcp' },
        legacy: { type: 'sse', url: 'http://127.0.0.1:3001/sse' },
      },
    });
    expect(loaded.config.servers.memory).toMatchObject({ kind: 'stdio' });
    expect(loaded.config.servers.github).toMatchObject({ kind: 'remote', transport: 'streamable-http' });
    expect(loaded.config.servers.legacy).toMatchObject({ kind: 'remote', transport: 'sse' });
    expect(loaded.config).not.toHaveProperty('inputs');
    expect(loaded.notices).toEqual([expect.stringMatching(/^"inputs" \(VS Code prompts\) is ignored/)]);
  });

  it('VS Code: a .vscode/mcp.json with comments and trailing commas (JSONC) loads', async () => {
    const loaded = await load(
      '.vscode/mcp.json',
      '{\n  // my servers\n  "servers": {\n    "api": { "type": "http", "url": "http://127.0.0.1:1/mcp", }, /* more later */\n  },\n}\n',
    );
    expect(loaded.config.servers.api).toMatchObject({ url: 'http://127.0.0.1:1/mcp' });
    const broken = await failure('broken.json', '{\n  // note\n  "servers": {\n}\n');
    expect(broken.message).toMatch(/JSON syntax error at line 5/);
  });

  it('Claude Code (.mcp.json): type stdio / http', async () => {
    const { config } = await load('.mcp.json', {
      mcpServers: {
        'sequential-thinking': { type: 'stdio', command: 'npx', args: ['-y', 'x'], env: {} },
        api: {
          type: 'http',
          url: 'http://127.0.0.1:3000/mcp',
          headers: { Authorization: 'Bearer ${env:TOKEN:-dev}' },
        },
      },
    });
    expect(config.servers['sequential-thinking']).toMatchObject({
      kind: 'stdio',
      namespace: 'sequential-thinking',
    });
    expect(config.servers.api).toMatchObject({ headers: { Authorization: 'Bearer dev' } });
  });

  it('warns where a value has ${NAME} (Claude Code) or ${input:…} (VS Code), which Aperture passes on literally', async () => {
    const loaded = await load('.mcp.json', {
      mcpServers: {
        api: {
          type: 'http',
          url: 'http://127.0.0.1:1/mcp',
          headers: { Authorization: 'Bearer ${API_TOKEN}' },
        },
        local: {
          command: 'x',
          args: ['${HOME:-/tmp}'],
          env: { KEY: '${input:api-key}', OK: '${env:OK:-1}', ESC: '$${env:X}' },
        },
      },
    });
    expect(loaded.warnings).toEqual([
      'mcpServers.api.headers.Authorization: "${API_TOKEN}" is passed on literally; Aperture reads variables as ${env:API_TOKEN}',
      'mcpServers.local.env.KEY: "${input:api-key}" is passed on literally; Aperture reads variables as ${env:NAME} or ${secret:NAME}',
    ]);
  });

  it('expands ${NAME} (Claude Code), ${userHome} and ${workspaceFolder} (Cursor) in pasted env, headers and url', async () => {
    const loaded = await load(
      'project/.cursor/mcp.json',
      {
        mcpServers: {
          api: {
            url: 'http://127.0.0.1:1/${API_PATH}',
            headers: { Authorization: 'Bearer ${API_TOKEN}', Region: '${REGION:-eu}' },
          },
          local: {
            command: 'x',
            env: {
              DATA: '${userHome}/data',
              ROOT: '${workspaceFolder}/src',
              OWN: '${env:API_TOKEN}',
            },
          },
        },
      },
      { API_TOKEN: 'tok-123', API_PATH: 'api/v2' },
    );
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.servers.api).toMatchObject({
      url: 'http://127.0.0.1:1/api/v2',
      headers: { Authorization: 'Bearer tok-123', Region: 'eu' },
    });
    expect(loaded.config.servers.local).toMatchObject({
      env: { DATA: `${dir}/data`, ROOT: join(dir, 'project/.cursor/src'), OWN: 'tok-123' },
    });
    // A value read from the environment is a credential: masked like ${env:…} ones.
    expect(loaded.secretValues).toContain('tok-123');
  });

  it('keys with spaces or slashes become valid namespaces, each named in an info line', async () => {
    const loaded = await load('mcp.json', {
      mcpServers: {
        'GitHub Tools': { command: 'npx', args: ['x'] },
        '@acme/db': { command: 'npx', args: ['y'] },
        'named one': { command: 'npx', namespace: 'named' },
      },
    });
    expect(loaded.config.servers['GitHub Tools']?.namespace).toBe('GitHub-Tools');
    expect(loaded.config.servers['@acme/db']?.namespace).toBe('acme-db');
    expect(loaded.config.servers['named one']?.namespace).toBe('named');
    expect(loaded.notices).toEqual([
      'mcpServers["GitHub Tools"]: the key is not a valid namespace; its tools use namespace "GitHub-Tools"',
      'mcpServers["@acme/db"]: the key is not a valid namespace; its tools use namespace "acme-db"',
    ]);
  });

  it('two keys normalising to one namespace are refused as a collision', async () => {
    const error = await failure('mcp.json', {
      mcpServers: { 'a b': { command: 'x' }, 'a/b': { command: 'y' } },
    });
    expect(error.message).toContain('namespace "a-b" is already used by server "a b"');
  });

  it('a typo is an unknown key with a suggestion, not "needs either command or url"', async () => {
    const error = await failure('mcp.json', { mcpServers: { fs: { comand: 'npx', args: [] } } });
    expect(error.message).toBe(
      'Invalid config (mcp.json): mcpServers.fs.comand: unknown key (did you mean "command"?)',
    );
    const url = await failure('mcp2.json', { mcpServers: { fs: { ulr: 'http://127.0.0.1/mcp' } } });
    expect(url.message).toContain('mcpServers.fs.ulr: unknown key (did you mean "url"?)');
  });

  it('suggests the right key for unknown keys everywhere in the file', async () => {
    const error = await failure(
      'gw.yaml',
      'servr: { port: 1 }\nexposure: { mdoe: flat }\nmcpServers: { a: { command: x, arsg: [] } }\n',
    );
    expect(error.details?.issues).toEqual(
      expect.arrayContaining([
        { path: 'servr', message: 'unknown key (did you mean "server"?)' },
        { path: 'exposure.mdoe', message: 'unknown key (did you mean "mode"?)' },
        { path: 'mcpServers.a.arsg', message: 'unknown key (did you mean "args"?)' },
      ]),
    );
    const far = await failure('far.yaml', 'completelyUnrelated: 1\n');
    expect(far.message).toBe('Invalid config (far.yaml): completelyUnrelated: unknown key');
  });
});

describe('normaliseNamespace', () => {
  it('keeps valid keys, turns runs of other characters into "-", refuses what has nothing usable', () => {
    expect(normaliseNamespace('github')).toBe('github');
    expect(normaliseNamespace('My  Server!')).toBe('My-Server');
    expect(normaliseNamespace('x'.repeat(80))).toBe('x'.repeat(64));
    expect(normaliseNamespace('!!!')).toBeUndefined();
  });
});

describe('parseDotenv', () => {
  it('reads quoted, unquoted, exported and commented lines', () => {
    expect(parseDotenv('A=1\n# c\nexport B=\'x # y\'\nC="l1\\nl2"\nD = v # note\nnot a line\n')).toEqual({
      A: '1',
      B: 'x # y',
      C: 'l1\nl2',
      D: 'v',
    });
  });
});
