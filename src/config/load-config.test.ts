// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failureOf } from '../../test/support/expect-failure.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { DEFAULT_CONFIG } from './config-schema.js';
import { loadConfig, parseConfigText, parseConfigValue } from './load-config.js';

/** docs/DESIGN.md §4, verbatim apart from YAML comments. */
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

async function rejection(promise: Promise<unknown>): Promise<GatewayError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (error instanceof GatewayError) return error;
  throw new Error(`expected a GatewayError, got ${String(error)}`);
}

describe('parseConfigText', () => {
  it('parses the full example of docs/DESIGN.md §4', () => {
    const { config, warnings } = parseConfigText(DESIGN_EXAMPLE, 'yaml', {
      env: { KEY: 'k-123' },
      secrets: new Map([['REMOTE_TOKEN', 'rt-456']]),
    });
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
      headers: { Authorization: 'Bearer rt-456' },
      timeoutMs: 30000,
      namespace: 'rem',
    });
    expect(config.overrides['everything:echo']).toMatchObject({ name: 'say', title: 'Say' });
    expect(config.exposure).toEqual({
      mode: 'auto',
      encoding: 'o200k_base',
      pinned: [],
      connectorTools: false,
    });
    expect(config.search.strategy).toBe('hybrid');
    expect(config.secrets).toEqual({ providers: [{ type: 'env' }] });
    expect(warnings).toEqual([]);
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
    const error = failureOf(() => parseConfigText(text, 'yaml', { source: 'aperture.yaml' }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(/^Invalid config \(aperture\.yaml\): /);
    const issues = error.details?.issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'tools.modlues', message: 'unknown key (did you mean "modules"?)' },
        { path: 'servers.gh.header', message: 'unknown key (did you mean "headers"?)' },
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
    const error = failureOf(() =>
      parseConfigText('server: { port: abc }\ntools: { builtin: 3 }', 'yaml', {}),
    );
    expect(error.message).toBe(
      'Invalid config: server.port: expected an integer, got "abc"; tools.builtin: expected true or false, got number 3',
    );
  });

  it('words a bad integer, boolean or namespace the same in every section', () => {
    const error = failureOf(() =>
      parseConfigText(
        [
          'cache: { ttlMs: abc }',
          'resilience: { circuitBreaker: { enabled: 3 } }',
          'toolsets: [{ name: t, namespaces: ["bad ns"], annotations: { readOnlyHint: 3 } }]',
          'skills: [{ name: s, description: d, steps: [{ id: a, tool: "x:y" }], limits: { timeoutMs: soon } }]',
          'servers: { "good": { command: x, namespace: "bad ns" } }',
        ].join('\n'),
        'yaml',
        {},
      ),
    );
    const namespaceRule =
      'must be a valid namespace (letters, digits, "_", "." or "-", starting with a letter or digit, at most 64 characters)';
    expect(error.message).toMatch(/^Invalid config: /);
    const lines = error.message.replace(/^Invalid config: /, '').split('; ');
    expect(lines.sort()).toEqual(
      [
        'cache.ttlMs: expected an integer, got "abc"',
        'resilience.circuitBreaker.enabled: expected true or false, got number 3',
        `toolsets[0].namespaces[0]: ${namespaceRule}`,
        'toolsets[0].annotations.readOnlyHint: expected true or false, got number 3',
        'skills[0].limits.timeoutMs: expected an integer, got "soon"',
        `servers.good.namespace: ${namespaceRule}`,
      ].sort(),
    );
  });

  it('says "is required" for a missing key', () => {
    const error = failureOf(() => parseConfigText('servers: { r: { type: http } }', 'yaml', {}));
    expect(error.details?.issues).toEqual([{ path: 'servers.r.url', message: 'is required' }]);
  });

  it('names a missing env variable, the key path and the file', () => {
    const text =
      'servers:\n  gh:\n    url: https://x/mcp\n    headers: { Authorization: "Bearer ${env:GH_TOKEN}" }\n';
    const error = failureOf(() => parseConfigText(text, 'yaml', { env: {}, source: 'aperture.yaml' }));
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
    const error = failureOf(() => parseConfigText('server:\n  port: 1\ntools: [a, b\nx: 1\n', 'yaml', {}));
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
    const error = failureOf(() => parseConfigText('{\n  "server": {}\n  "tools": {}\n}', 'json', {}));
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

  it('takes every search strategy as given', () => {
    for (const strategy of ['lexical', 'bm25', 'semantic', 'hybrid']) {
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

describe('${secret:…} in parseConfigValue / parseConfigText', () => {
  const remote = (authorization: string) => ({
    servers: { remote: { url: 'http://127.0.0.1:9/mcp', headers: { Authorization: authorization } } },
  });

  it('resolves secrets from the map given', () => {
    const secrets = new Map([['REMOTE_TOKEN', 'rt-1']]);
    const { config } = parseConfigValue(remote('Bearer ${secret:REMOTE_TOKEN}'), { secrets });
    expect(config.servers.remote).toMatchObject({ headers: { Authorization: 'Bearer rt-1' } });
  });

  it('names the key path of a secret the map lacks', () => {
    const error = failureOf(() =>
      parseConfigValue(remote('Bearer ${secret:REMOTE_TOKEN}'), { secrets: new Map(), source: 'gw.yaml' }),
    );
    expect(error.code).toBe('config_invalid');
    expect(error.message).toBe(
      'Invalid config (gw.yaml): servers.remote.headers.Authorization: secret "REMOTE_TOKEN" is not defined',
    );
    expect(error.details).toMatchObject({
      path: 'servers.remote.headers.Authorization',
      secret: 'REMOTE_TOKEN',
    });
  });

  it('refuses a secret reference when no secrets were passed, naming where', () => {
    const error = failureOf(() =>
      parseConfigText('agents: { a: { url: "http://x", headers: { K: "${secret:K}" } } }', 'yaml', {}),
    );
    expect(error.code).toBe('config_invalid');
    expect(error.message).toMatch(
      /^Invalid config: agents\.a\.headers\.K: secret "K" cannot be resolved here/,
    );
  });

  it('keeps $${secret:X} as the literal text ${secret:X}, with or without secrets', () => {
    for (const secrets of [undefined, new Map([['X', 'resolved']])]) {
      const { config } = parseConfigValue(remote('$${secret:X}'), { secrets });
      expect(config.servers.remote).toMatchObject({ headers: { Authorization: '${secret:X}' } });
    }
  });

  it('refuses ${secret:…} inside the secrets section', () => {
    const raw = { secrets: { providers: [{ type: 'directory', path: '${secret:DIR}' }] } };
    const error = failureOf(() => parseConfigValue(raw, { secrets: new Map([['DIR', '/x']]) }));
    expect(error.message).toMatch(
      /secrets\.providers\[0\]\.path: \$\{secret:…\} cannot be used in the secrets section/,
    );
  });

  it('validates the secrets section strictly, by provider type', () => {
    const bad = {
      secrets: {
        providers: [{ type: 'vault' }, { type: 'directory' }, { type: 'env', path: '/x' }],
        extra: true,
      },
    };
    expect(failureOf(() => parseConfigValue(bad)).details?.issues).toEqual([
      { path: 'secrets.providers[0].type', message: 'must be one of "env", "directory"' },
      { path: 'secrets.providers[1].path', message: 'is required' },
      { path: 'secrets.providers[2].path', message: 'unknown key' },
      { path: 'secrets.extra', message: 'unknown key' },
    ]);
  });

  it('defaults to one env provider without prefix', () => {
    expect(parseConfigValue({}).config.secrets).toEqual({ providers: [{ type: 'env' }] });
    expect(parseConfigValue({ secrets: {} }).config.secrets).toEqual({ providers: [{ type: 'env' }] });
    const { config } = parseConfigValue({ secrets: { providers: [{ type: 'env', prefix: 'APP_' }] } });
    expect(config.secrets.providers).toEqual([{ type: 'env', prefix: 'APP_' }]);
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
    expect(loaded).toEqual({ config: DEFAULT_CONFIG, baseDir: dir, warnings: [], secretValues: [] });
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

  it('uses ${secret:NAME:-default} when no provider has the secret, and fails only for uses without one', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      'agents: { a: { url: "http://127.0.0.1:1", headers: { K: "${secret:K:-none}", L: "${secret:K:-other}" } } }',
    );
    const loaded = await loadConfig({ cwd: dir, env: {} });
    expect(loaded.config.agents.a?.headers).toEqual({ K: 'none', L: 'other' });
    const withValue = await loadConfig({ cwd: dir, env: { K: 'real' } });
    expect(withValue.config.agents.a?.headers).toEqual({ K: 'real', L: 'real' });
    await writeFile(
      join(dir, 'aperture.yaml'),
      'agents: { a: { url: "http://127.0.0.1:1", headers: { K: "${secret:K:-none}", L: "${secret:K}" } } }',
    );
    const error = await rejection(loadConfig({ cwd: dir, env: {} }));
    expect(error.message).toContain('agents.a.headers.L: secret "K" is not defined');
  });

  it('names a discovered file in validation errors', async () => {
    await writeFile(join(dir, 'aperture.yaml'), 'serverz: {}');
    const error = await rejection(loadConfig({ cwd: dir }));
    expect(error.message).toBe(
      'Invalid config (aperture.yaml): serverz: unknown key (did you mean "server"?)',
    );
  });

  it('loads a given file relative to cwd, with baseDir its directory', async () => {
    await mkdir(join(dir, 'conf'));
    await writeFile(join(dir, 'conf', 'gw.json'), '{ "tools": { "modules": ["./tools/*.ts"] } }');
    const loaded = await loadConfig({ cwd: dir, file: 'conf/gw.json' });
    expect(loaded.file).toBe(join(dir, 'conf', 'gw.json'));
    expect(loaded.baseDir).toBe(join(dir, 'conf'));
    expect(loaded.config.tools.modules).toEqual(['./tools/*.ts']);
  });

  it('reads the file APERTURE_CONFIG names when no file is given; a given file wins', async () => {
    // A client that starts the gateway in `/` (Claude Desktop) passes the config in its env.
    await mkdir(join(dir, 'conf'));
    await writeFile(join(dir, 'conf', 'gw.yaml'), 'server: { name: from-env }');
    await writeFile(join(dir, 'other.yaml'), 'server: { name: from-flag }');
    const fromEnv = await loadConfig({ cwd: '/', env: { APERTURE_CONFIG: join(dir, 'conf', 'gw.yaml') } });
    expect(fromEnv.config.server.name).toBe('from-env');
    expect(fromEnv.baseDir).toBe(join(dir, 'conf'));
    const fromFlag = await loadConfig({
      cwd: dir,
      file: 'other.yaml',
      env: { APERTURE_CONFIG: join(dir, 'conf', 'gw.yaml') },
    });
    expect(fromFlag.config.server.name).toBe('from-flag');
    // Empty is unset, as shells and client configs often leave it.
    expect((await loadConfig({ cwd: dir, env: { APERTURE_CONFIG: '' } })).file).toBeUndefined();
  });

  it('names APERTURE_CONFIG when the file it names does not exist', async () => {
    const error = await rejection(
      loadConfig({ cwd: dir, env: { APERTURE_CONFIG: join(dir, 'missing.yaml') } }),
    );
    expect(error.code).toBe('config_invalid');
    expect(error.message).toBe(`Config file not found: ${join(dir, 'missing.yaml')} (from APERTURE_CONFIG)`);
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

  it('returns a deep-frozen config', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      'search: { strategy: semantic }\nhttp: { cors: { origins: ["*"] } }',
    );
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded.config.search.strategy).toBe('semantic');
    expect(Object.isFrozen(loaded.config.http.cors.origins)).toBe(true);
    expect(() => {
      (loaded.config.http.cors.origins as string[]).push('x');
    }).toThrow(TypeError);
  });

  it('resolves ${secret:…} from the environment by default, and reports the values to mask', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      [
        'servers:',
        '  remote: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${secret:TOKEN}" } }',
        '  local: { command: node, args: ["--key=${secret:TOKEN}"], env: { PIN: "${secret:PIN}" } }',
      ].join('\n'),
    );
    const loaded = await loadConfig({ cwd: dir, env: { TOKEN: 'tok-12345', PIN: '123' } });
    expect(loaded.config.servers.remote).toMatchObject({ headers: { Authorization: 'Bearer tok-12345' } });
    expect(loaded.config.servers.local).toMatchObject({ args: ['--key=tok-12345'], env: { PIN: '123' } });
    // Deduplicated; "123" is too short to mask; the credential header's whole value is masked too.
    expect(loaded.secretValues).toEqual(['tok-12345', 'Bearer tok-12345']);
  });

  it('reports API keys as values to mask, however they were written', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      'auth: { apiKeys: [{ name: a, key: literal-key-0123456789 }, { name: b, key: "${env:K}" }] }',
    );
    const loaded = await loadConfig({ cwd: dir, env: { K: 'env-key-0123456789ab' } });
    expect(loaded.secretValues?.sort()).toEqual(['env-key-0123456789ab', 'literal-key-0123456789']);
  });

  it('masks every ${env:…} value that lands in a URL, header, env or argument of a source', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      [
        'server: { name: "${env:NAME}" }',
        'servers:',
        '  remote: { url: "http://127.0.0.1:9/mcp?key=${env:URL_KEY}", headers: { X-Custom: "${env:HDR}" } }',
        '  local: { command: node, args: ["--token=${env:ARG}"], env: { ANY_NAME: "${env:CHILD}" } }',
        'openapi: [{ spec: "http://127.0.0.1:9/spec.json?api_key=${env:SPEC}", namespace: api,',
        '            baseUrl: "http://127.0.0.1:9/?api_key=${env:BASE}" }]',
        'agents: { peer: { url: "http://127.0.0.1:9/${env:AGENT}", headers: { Authorization: "Bearer literal-bearer-1" } } }',
      ].join('\n'),
    );
    const env = {
      NAME: 'gateway-name',
      URL_KEY: 'url-key-1',
      HDR: 'header-value-1',
      ARG: 'arg-token-1',
      CHILD: 'child-env-1',
      SPEC: 'spec-key-1',
      BASE: 'base-key-1',
      AGENT: 'agent-path-1',
    };
    const loaded = await loadConfig({ cwd: dir, env });
    expect(loaded.secretValues?.sort()).toEqual(
      [
        'url-key-1',
        'header-value-1',
        'arg-token-1',
        'child-env-1',
        'spec-key-1',
        'base-key-1',
        'agent-path-1',
        // A literal value under a credential header name is a credential too.
        'Bearer literal-bearer-1',
      ].sort(),
    );
  });

  it('masks literal credentials in source URLs: a password and sensitive query values', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      [
        'servers:',
        '  remote: { url: "http://user:url-pass-1@127.0.0.1:9/mcp?api_key=literal-key-1&page=2" }',
        'openapi: [{ spec: "http://127.0.0.1:9/spec.json?access_token=literal-token-1", namespace: api }]',
        'search: { embedder: { provider: openai, url: "http://127.0.0.1:9/v1", model: m, apiKey: sk-literal-1 } }',
      ].join('\n'),
    );
    const loaded = await loadConfig({ cwd: dir, env: {} });
    expect(loaded.secretValues?.sort()).toEqual([
      'literal-key-1',
      'literal-token-1',
      'sk-literal-1',
      'url-pass-1',
    ]);
  });

  it('asks the providers in list order, a directory relative to the config file', async () => {
    await mkdir(join(dir, 'conf', 'secrets'), { recursive: true });
    await writeFile(join(dir, 'conf', 'secrets', 'BOTH'), 'from-file\n');
    await writeFile(join(dir, 'conf', 'secrets', 'FILE_ONLY'), 'file-only\n');
    const providers = (first: string, second: string) => `secrets: { providers: [${first}, ${second}] }`;
    const body = [
      'openapi: [{ spec: ./api.yaml, namespace: api, headers: { A: "${secret:BOTH}", B: "${secret:FILE_ONLY}" } }]',
      'agents: { peer: { url: "http://127.0.0.1:9", headers: { C: "${secret:ENV_ONLY}" } } }',
    ];
    const env = { APP_BOTH: 'from-env', APP_ENV_ONLY: 'env-only', BOTH: 'unprefixed' };
    const dirProvider = '{ type: directory, path: secrets }';
    const envProvider = '{ type: env, prefix: APP_ }';

    await writeFile(join(dir, 'conf', 'gw.yaml'), [providers(dirProvider, envProvider), ...body].join('\n'));
    const fileFirst = await loadConfig({ cwd: dir, file: 'conf/gw.yaml', env });
    expect(fileFirst.config.openapi[0]?.headers).toEqual({ A: 'from-file', B: 'file-only' });
    expect(fileFirst.config.agents.peer?.headers).toEqual({ C: 'env-only' });
    expect(fileFirst.secretValues?.sort()).toEqual(['env-only', 'file-only', 'from-file']);

    await writeFile(join(dir, 'conf', 'gw.yaml'), [providers(envProvider, dirProvider), ...body].join('\n'));
    const envFirst = await loadConfig({ cwd: dir, file: 'conf/gw.yaml', env });
    expect(envFirst.config.openapi[0]?.headers).toEqual({ A: 'from-env', B: 'file-only' });
  });

  it('names every missing secret with the path of its use, the file and the providers asked', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      [
        'secrets: { providers: [{ type: directory, path: "${env:SECRETS_DIR}" }, { type: env }] }',
        'servers:',
        '  remote: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${secret:REMOTE_TOKEN}" } }',
        '  other: { url: "http://127.0.0.1:9/x", headers: { X: "${secret:OTHER}", Y: "${secret:REMOTE_TOKEN}" } }',
      ].join('\n'),
    );
    const error = await rejection(loadConfig({ cwd: dir, env: { SECRETS_DIR: 'run/secrets' } }));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toBe(
      'Invalid config (aperture.yaml): servers.remote.headers.Authorization: secret "REMOTE_TOKEN" is not defined; ' +
        'servers.other.headers.X: secret "OTHER" is not defined',
    );
    expect(error.details).toMatchObject({
      path: 'servers.remote.headers.Authorization',
      secret: 'REMOTE_TOKEN',
      providers: [`directory:${join(dir, 'run/secrets')}`, 'env'],
    });
  });

  it('reports an invalid secrets section before looking anything up', async () => {
    await writeFile(
      join(dir, 'aperture.yaml'),
      'secrets: { providers: [{ type: file, path: x }] }\nserver: { name: "${secret:N}" }',
    );
    const error = await rejection(loadConfig({ cwd: dir, env: { N: 'name' } }));
    expect(error.message).toBe(
      'Invalid config (aperture.yaml): secrets.providers[0].type: must be one of "env", "directory"',
    );
  });

  it('refuses secret names that are paths', async () => {
    await mkdir(join(dir, 'secrets'));
    await writeFile(join(dir, 'leak'), 'outside');
    await writeFile(
      join(dir, 'aperture.yaml'),
      'secrets: { providers: [{ type: directory, path: secrets }] }\nserver: { name: "${secret:../leak}" }',
    );
    const error = await rejection(loadConfig({ cwd: dir, env: {} }));
    expect(error.message).toMatch(/server\.name: invalid secret name "\.\.\/leak"/);
  });

  it('fails the load when a provider cannot answer, naming the secret and where it is used', async () => {
    await writeFile(join(dir, 'aperture.yaml'), 'server: { name: "${secret:N}" }');
    // An environment that cannot be read stands in for a provider that is down.
    const env = new Proxy({} as NodeJS.ProcessEnv, {
      getOwnPropertyDescriptor() {
        throw new Error('env unavailable');
      },
    });
    const error = await rejection(loadConfig({ cwd: dir, env }));
    expect(error.message).toBe(
      'Invalid config (aperture.yaml): server.name: secret "N" could not be read (env): env unavailable',
    );
  });

  it('keeps $${secret:X} literal and lets a secret set a number', async () => {
    await writeFile(join(dir, 'aperture.yaml'), 'server: { name: "$${secret:X}", port: "${secret:PORT}" }');
    const loaded = await loadConfig({ cwd: dir, env: { PORT: '9191' } });
    expect(loaded.config.server).toMatchObject({ name: '${secret:X}', port: 9191 });
    expect(loaded.secretValues).toEqual(['9191']);
  });
});

describe('exposure.pinned', () => {
  it('warns when the mode is flat, where pinning changes nothing', () => {
    expect(parseConfigValue({ exposure: { mode: 'flat', pinned: ['a:b'] } }).warnings).toEqual([
      'exposure.pinned: has no effect with mode "flat", which lists every tool directly',
    ]);
    expect(parseConfigValue({ exposure: { mode: 'metatools', pinned: ['a:b'] } }).warnings).toEqual([]);
  });
});
