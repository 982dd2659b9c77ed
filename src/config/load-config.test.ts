// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/gateway-error.js';
import { DEFAULT_CONFIG } from './config-schema.js';
import { loadConfig, parseConfigText, parseConfigValue } from './load-config.js';

/** DESIGN.md §4, verbatim apart from YAML comments. */
const DESIGN_EXAMPLE = `
server: { name: aperture, host: 127.0.0.1, port: 8080 }
http: { cors: { origins: [] }, maxBodyBytes: 4194304 }
servers:                     # downstream MCP servers
  everything:
    command: npx             # stdio server
    args: ["-y", "@modelcontextprotocol/server-everything"]
    env: { KEY: "\${env:KEY}" }
  remote:
    url: http://127.0.0.1:9000/mcp
    transport: streamable-http
    headers: { Authorization: "Bearer \${secret:REMOTE_TOKEN}" }
    timeoutMs: 30000
    namespace: rem
    prefix: true
tools:
  builtin: true
  modules: ["./tools/*.ts"]
openapi: []
agents: {}
overrides:
  "*": { annotations: {} }
  "everything": { tags: [demo] }
  "everything:echo": { name: say, title: Say, description: "...", hidden: false, annotations: {}, tags: [], args: { fixed: {}, defaults: {} } }
search: { strategy: hybrid }
exposure: auto
toolsets: []
skills: []
auth: {}
cache: {}
rateLimits: []
observability: {}
secrets: {}
state: {}
`;

function catchError(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (error instanceof GatewayError) return error;
  throw new Error(`expected a GatewayError, got ${String(error)}`);
}

describe('parseConfigText', () => {
  it('parses the full example of DESIGN.md §4', () => {
    const { config, warnings } = parseConfigText(DESIGN_EXAMPLE, 'yaml', { env: { KEY: 'k-123' } });
    expect(config.servers.everything).toMatchObject({
      kind: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
      env: { KEY: 'k-123' },
      namespace: 'everything',
    });
    expect(config.servers.remote).toMatchObject({
      kind: 'remote',
      transport: 'streamable-http',
      headers: { Authorization: 'Bearer ${secret:REMOTE_TOKEN}' },
      timeoutMs: 30000,
      namespace: 'rem',
    });
    expect(config.overrides['everything:echo']).toMatchObject({ name: 'say', title: 'Say' });
    expect(config.exposure).toEqual({ mode: 'auto', budgetTokens: 3000, connectorTools: false });
    expect(config.search.strategy).toBe('bm25');
    expect(warnings).toEqual(['search.strategy "hybrid" is not implemented yet; using "bm25"']);
  });

  it('names every unknown key with its full path, at several depths', () => {
    const text = [
      'tools: { modlues: [] }',
      'servers:',
      '  gh: { url: "https://x/mcp", transport: grpc, header: {} }',
      'overrides:',
      '  "gh:issue": { annotations: { readonly: true } }',
      'extra: 1',
    ].join('\n');
    const error = catchError(() => parseConfigText(text, 'yaml', { source: 'aperture.yaml' }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(/^Invalid config \(aperture\.yaml\): /);
    const issues = error.details?.issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'tools.modlues', message: 'unknown key' },
        { path: 'servers.gh.header', message: 'unknown key' },
        {
          path: 'servers.gh.transport',
          message: 'must be one of "streamable-http", "sse", "auto" (got "grpc")',
        },
        { path: 'overrides["gh:issue"].annotations.readonly', message: 'unknown key' },
        { path: 'extra', message: 'unknown key' },
      ]),
    );
    expect(issues).toHaveLength(5);
    for (const path of ['tools.modlues', 'servers.gh.header', 'annotations.readonly', 'extra: unknown key']) {
      expect(error.message).toContain(path);
    }
  });

  it('names the path of a wrong type, and says what was expected', () => {
    const error = catchError(() =>
      parseConfigText('server: { port: abc }\ntools: { builtin: 3 }', 'yaml', {}),
    );
    expect(error.message).toBe(
      'Invalid config: server.port: expected an integer, got "abc"; tools.builtin: expected true or false, got number 3',
    );
  });

  it('says "is required" for a missing key', () => {
    const error = catchError(() => parseConfigText('servers: { r: { type: http } }', 'yaml', {}));
    expect(error.details?.issues).toEqual([{ path: 'servers.r.url', message: 'is required' }]);
  });

  it('names a missing env variable, the key path and the file', () => {
    const text =
      'servers:\n  gh:\n    url: https://x/mcp\n    headers: { Authorization: "Bearer ${env:GH_TOKEN}" }\n';
    const error = catchError(() => parseConfigText(text, 'yaml', { env: {}, source: 'aperture.yaml' }));
    expect(error.message).toBe(
      'Invalid config (aperture.yaml): Environment variable "GH_TOKEN" is not set (used at servers.gh.headers.Authorization)',
    );
    expect(error.details).toMatchObject({ variable: 'GH_TOKEN', path: 'servers.gh.headers.Authorization' });
  });

  it('interpolates before validating, so ${env:PORT} can set a number', () => {
    const { config } = parseConfigText('server: { port: "${env:PORT}" }', 'yaml', { env: { PORT: '9090' } });
    expect(config.server.port).toBe(9090);
  });

  it('reports a YAML syntax error with its line number', () => {
    const error = catchError(() => parseConfigText('server:\n  port: 1\ntools: [a, b\nx: 1\n', 'yaml', {}));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(/^Invalid config: YAML syntax error: .*line 4/);
    expect(error.message).not.toContain('\n');
    expect(error.details).toMatchObject({ line: 4 });
  });

  it('reports duplicate YAML keys', () => {
    expect(() => parseConfigText('server: {}\nserver: {}\n', 'yaml', {})).toThrow(/unique.*line 2/);
  });

  it('parses JSON configs, and reports JSON syntax errors with line and column', () => {
    const { config } = parseConfigText('{ "mcpServers": { "fs": { "command": "npx" } } }', 'json', {});
    expect(config.servers.fs).toMatchObject({ kind: 'stdio', command: 'npx' });
    const error = catchError(() => parseConfigText('{\n  "server": {}\n  "tools": {}\n}', 'json', {}));
    expect(error.message).toMatch(/^Invalid config: JSON syntax error at line 3, column 3/);
    expect(error.details).toMatchObject({ line: 3, column: 3 });
  });

  it('reads an empty or comment-only file as {}', () => {
    expect(parseConfigText('', 'yaml', {}).config).toEqual(DEFAULT_CONFIG);
    expect(parseConfigText('# nothing yet\n', 'yaml', {}).config).toEqual(DEFAULT_CONFIG);
    expect(parseConfigText('  \n', 'json', {}).config).toEqual(DEFAULT_CONFIG);
  });

  it('requires the top level to be an object', () => {
    expect(() => parseConfigText('- a\n- b\n', 'yaml', {})).toThrow(
      /top level must be a mapping.*got a list/,
    );
    expect(() => parseConfigText('42', 'json', {})).toThrow(/top level must be a mapping/);
  });

  it('warns about unimplemented search strategies and runs bm25 instead', () => {
    for (const strategy of ['semantic', 'hybrid']) {
      const { config, warnings } = parseConfigText(`search: { strategy: ${strategy} }`, 'yaml', {});
      expect(config.search.strategy).toBe('bm25');
      expect(warnings).toEqual([`search.strategy "${strategy}" is not implemented yet; using "bm25"`]);
    }
    for (const strategy of ['lexical', 'bm25']) {
      const { config, warnings } = parseConfigText(`search: { strategy: ${strategy} }`, 'yaml', {});
      expect(config.search.strategy).toBe(strategy);
      expect(warnings).toEqual([]);
    }
  });

  it('reports the mcpServers collision in the message', () => {
    const text = JSON.stringify({ servers: { a: { command: 'x' } }, mcpServers: { a: { command: 'y' } } });
    expect(() => parseConfigText(text, 'json', {})).toThrow(/mcpServers\.a: server "a" is defined in both/);
  });
});

describe('parseConfigValue', () => {
  it('returns a deep-frozen config', () => {
    const { config } = parseConfigValue({ servers: { a: { command: 'x', args: ['1'] } } }, {});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.servers.a)).toBe(true);
    const server = config.servers.a;
    if (server?.kind !== 'stdio') throw new Error('expected a stdio server');
    expect(Object.isFrozen(server.args)).toBe(true);
    expect(() => {
      (server.args as string[]).push('2');
    }).toThrow(TypeError);
  });
});

describe('loadConfig', () => {
  let dir: string;

  beforeEach(async () => {
    // realpath: on macOS the tmpdir is a symlink and returned paths would not compare equal.
    dir = await realpath(await mkdtemp(join(tmpdir(), 'aperture-config-')));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs on the defaults when no config file exists', async () => {
    const loaded = await loadConfig({ cwd: dir, env: {} });
    expect(loaded).toEqual({ config: DEFAULT_CONFIG, baseDir: dir, warnings: [] });
    expect(loaded.file).toBeUndefined();
  });

  it('discovers aperture.yaml, then aperture.yml, then aperture.json', async () => {
    await writeFile(join(dir, 'aperture.json'), '{ "server": { "name": "from-json" } }');
    expect((await loadConfig({ cwd: dir })).config.server.name).toBe('from-json');
    await writeFile(join(dir, 'aperture.yml'), 'server: { name: from-yml }');
    expect((await loadConfig({ cwd: dir })).config.server.name).toBe('from-yml');
    await writeFile(join(dir, 'aperture.yaml'), 'server: { name: from-yaml }');
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.config.server.name).toBe('from-yaml');
    expect(loaded.file).toBe(join(dir, 'aperture.yaml'));
    expect(loaded.baseDir).toBe(dir);
  });

  it('names a discovered file in validation errors', async () => {
    await writeFile(join(dir, 'aperture.yaml'), 'serverz: {}');
    const error = await rejection(loadConfig({ cwd: dir }));
    expect(error.message).toBe('Invalid config (aperture.yaml): serverz: unknown key');
  });

  it('loads a given file relative to cwd, with baseDir its directory', async () => {
    await mkdir(join(dir, 'conf'));
    await writeFile(join(dir, 'conf', 'gw.json'), '{ "tools": { "modules": ["./tools/*.ts"] } }');
    const loaded = await loadConfig({ cwd: dir, file: 'conf/gw.json' });
    expect(loaded.file).toBe(join(dir, 'conf', 'gw.json'));
    expect(loaded.baseDir).toBe(join(dir, 'conf'));
    expect(loaded.config.tools.modules).toEqual(['./tools/*.ts']);
  });

  it('reads files with other extensions as YAML', async () => {
    await writeFile(join(dir, 'gateway.conf'), 'exposure: metatools');
    const loaded = await loadConfig({ cwd: dir, file: 'gateway.conf' });
    expect(loaded.config.exposure.mode).toBe('metatools');
  });

  it('fails when a given file does not exist, even if a default one does', async () => {
    await writeFile(join(dir, 'aperture.yaml'), '');
    const error = await rejection(loadConfig({ cwd: dir, file: 'missing.yaml' }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toBe(`Config file not found: ${join(dir, 'missing.yaml')}`);
  });

  it('interpolates from the given env, not process.env', async () => {
    await writeFile(join(dir, 'aperture.yaml'), 'server: { name: "${env:GW_NAME}" }');
    const loaded = await loadConfig({ cwd: dir, env: { GW_NAME: 'from-env' } });
    expect(loaded.config.server.name).toBe('from-env');
    await expect(loadConfig({ cwd: dir, env: {} })).rejects.toThrow(
      /"GW_NAME" is not set \(used at server\.name\)/,
    );
  });

  it('returns a deep-frozen config and the warnings', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      'search: { strategy: semantic }\nhttp: { cors: { origins: ["*"] } }',
    );
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.warnings).toHaveLength(1);
    expect(Object.isFrozen(loaded.config.http.cors.origins)).toBe(true);
    expect(() => {
      (loaded.config.http.cors.origins as string[]).push('x');
    }).toThrow(TypeError);
  });
});
