// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the configs use ${env:…} on purpose.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, ROOT } from './gateway-process.js';

const exec = promisify(execFile);
const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default as typeof import('ajv').default;
const YAML = require('yaml') as typeof import('yaml');

let home: string;
let project: string;

beforeEach(async () => {
  home = await mkdtemp(path.join(tmpdir(), 'aperture-home-'));
  project = await mkdtemp(path.join(tmpdir(), 'aperture-project-'));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

/** Runs the built CLI in the project with HOME set to the temporary home; never throws on non-zero. */
async function aperture(args: string[]) {
  const env = { ...process.env, HOME: home, APPDATA: '' };
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd: project, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function put(file: string, content: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
}

const starter = () => readFile(path.join(project, 'aperture.yaml'), 'utf8');

describe('aperture init', () => {
  it("writes a starter that validates, imports Claude Desktop's servers, and points editors at the schema", async () => {
    await put(path.join(home, '.config', 'Claude', 'claude_desktop_config.json'), {
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        'My Files': { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
        broken: { comand: 'npx' },
      },
      globalShortcut: 'Ctrl+Space',
    });
    const init = await aperture(['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('with 2 server(s) from');
    expect(init.stderr).toContain(
      'not imported (left commented out): broken: mcpServers.broken.comand: unknown key',
    );
    const text = await starter();
    const [first = ''] = text.split('\n');
    const schemaFile = /^# yaml-language-server: \$schema=(.+)$/.exec(first)?.[1] ?? '';
    expect(path.resolve(project, schemaFile)).toBe(path.join(ROOT, 'dist', 'aperture.schema.json'));
    expect(text).toContain('# Imported from');
    expect(text).toContain('  #     comand: npx');

    const validate = await aperture(['config', 'validate']);
    expect(validate.code, validate.stderr).toBe(0);
    expect(validate.stdout).toBe('aperture.yaml: valid\n');
    expect(validate.stderr).toContain('its tools use namespace "My-Files"');

    const schema = JSON.parse(await readFile(path.join(ROOT, 'dist', 'aperture.schema.json'), 'utf8'));
    const check = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
    expect(check(YAML.parse(text)), JSON.stringify(check.errors)).toBe(true);
  });

  it('refuses to overwrite a config file (exit 2) unless --force', async () => {
    await writeFile(path.join(project, 'aperture.yaml'), 'server: { port: 9999 }\n');
    const refused = await aperture(['init', '--no-import']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^aperture: invalid_request: aperture\.yaml already exists; run with --force/,
    );
    expect(await starter()).toBe('server: { port: 9999 }\n');

    await rm(path.join(project, 'aperture.yaml'));
    await writeFile(path.join(project, 'aperture.json'), '{}');
    expect((await aperture(['init', '--no-import'])).code).toBe(2);

    const forced = await aperture(['init', '--no-import', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await starter()).toContain('mcpServers: {}');
    expect((await aperture(['config', 'validate', 'aperture.yaml'])).code).toBe(0);
  });

  it('--from imports a VS Code .vscode/mcp.json (JSONC, servers + type, inputs)', async () => {
    await put(
      path.join(project, 'elsewhere', 'mcp.json'),
      `{
  // VS Code allows comments and trailing commas
  "inputs": [{ "type": "promptString", "id": "key", "password": true }],
  "servers": {
    "memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], },
    "api": { "type": "http", "url": "http://127.0.0.1:3000/mcp" },
  },
}`,
    );
    // A user-level config exists too: --from wins over discovery.
    await put(path.join(home, '.cursor', 'mcp.json'), { mcpServers: { cursor_one: { command: 'x' } } });
    const init = await aperture(['init', '--from', 'elsewhere/mcp.json']);
    expect(init.code, init.stderr).toBe(0);
    const parsed = YAML.parse(await starter());
    expect(Object.keys(parsed.mcpServers)).toEqual(['memory', 'api']);
    expect((await aperture(['config', 'validate'])).code).toBe(0);
  });

  it("finds Cursor's ~/.cursor/mcp.json, and Claude Code's ~/.claude.json with this project's servers", async () => {
    await put(path.join(home, '.cursor', 'mcp.json'), {
      mcpServers: { search: { url: 'http://127.0.0.1:1/mcp' } },
    });
    expect((await aperture(['init'])).code).toBe(0);
    expect(Object.keys(YAML.parse(await starter()).mcpServers)).toEqual(['search']);

    await rm(path.join(home, '.cursor'), { recursive: true });
    await put(path.join(home, '.claude.json'), {
      numStartups: 3,
      mcpServers: { user_level: { type: 'stdio', command: 'npx', args: ['a'] } },
      projects: {
        [project]: { mcpServers: { project_level: { type: 'http', url: 'http://127.0.0.1:2/mcp' } } },
      },
    });
    const init = await aperture(['init', '--force']);
    expect(init.code, init.stderr).toBe(0);
    expect(Object.keys(YAML.parse(await starter()).mcpServers)).toEqual(['user_level', 'project_level']);
  });

  it('a --from file that is missing or not JSON is a caller mistake (exit 2), and nothing is written', async () => {
    const missing = await aperture(['init', '--from', 'nope.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^aperture: invalid_request: cannot read .*nope\.json/);
    await put(path.join(project, 'bad.json'), '{ not json');
    const bad = await aperture(['init', '--from', 'bad.json']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a JSON client config');
    await expect(readFile(path.join(project, 'aperture.yaml'))).rejects.toThrow(/ENOENT/);
  });

  it("leaves out the client's own aperture entry and says so", async () => {
    await put(path.join(project, '.mcp.json'), {
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        aperture: { command: 'npx', args: ['-y', 'aperture-gateway', 'serve', '--stdio'] },
      },
    });
    const init = await aperture(['init']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('with 1 server(s)');
    expect(init.stderr).toContain('not imported (left commented out): aperture:');
    expect(init.stderr).toContain('would start this Aperture gateway itself');
    const validate = await aperture(['config', 'validate']);
    expect(validate.code, validate.stderr).toBe(0);
  });
});

describe('aperture config schema', () => {
  it('prints the published schema, which rejects an unknown key and accepts the short forms', async () => {
    const printed = await aperture(['config', 'schema']);
    expect(printed.code).toBe(0);
    const schema = JSON.parse(printed.stdout);
    expect(schema).toEqual(
      JSON.parse(await readFile(path.join(ROOT, 'dist', 'aperture.schema.json'), 'utf8')),
    );
    const check = new Ajv2020({ strict: false }).compile(schema);
    expect(check({ servr: { port: 1 } })).toBe(false);
    expect(check({ mcpServers: { a: { comand: 'x' } } })).toBe(false);
    expect(check({ mcpServers: { a: { command: 'x', disabled: true, timeout: 30 } } })).toBe(true);
    expect(check({ mcpServers: { a: { serverUrl: 'http://127.0.0.1/mcp' } } })).toBe(true);
    expect(check({ server: { port: '${env:PORT:-8080}' }, exposure: 'flat' })).toBe(true);
  });
});
