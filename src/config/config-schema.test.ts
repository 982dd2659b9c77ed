// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { describe, expect, it } from 'vitest';
import { failureOf } from '../../test/support/expect-failure.js';
import { BM25_DEFAULTS } from '../discovery/bm25-defaults.js';
import { configSchema, DEFAULT_CONFIG, deepFreeze } from './config-schema.js';
import { formatConfigPath } from './interpolate.js';
import { parseConfigValue } from './load-config.js';

/** Parses and returns the formatted paths of every issue, or the config when valid. */
function issuePaths(input: unknown): string[] {
  const result = configSchema.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => formatConfigPath(issue.path));
}

describe('DEFAULT_CONFIG', () => {
  it('is the parse of {} with every documented default', () => {
    expect(DEFAULT_CONFIG).toEqual({
      server: { name: 'aperture', host: '127.0.0.1', port: 8080 },
      http: {
        cors: { origins: [] },
        maxBodyBytes: 4_194_304,
        allowedHosts: [],
        maxConnections: 1024,
        maxConnectionsPerAddress: 128,
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 65_000,
        sessionIdleMs: 1_800_000,
        maxSessionsPerIdentity: 256,
        cacheHintMaxTtlMs: 300_000,
        heartbeatMs: 15_000,
      },
      servers: {},
      tools: { builtin: true, modules: [] },
      openapi: [],
      agents: {},
      endpoints: {},
      sql: {},
      commands: {},
      overrides: {},
      // Every search default is checked in search-schema.test.ts.
      search: expect.objectContaining({ strategy: 'bm25', bm25: BM25_DEFAULTS }),
      exposure: { mode: 'auto', encoding: 'o200k_base', pinned: [], connectorTools: false },
      execution: { timeoutMs: 60_000, maxChainSteps: 20, maxResultBytes: 16_777_216 },
      startup: { waitMs: 10_000 },
      console: {},
      resilience: {
        retries: { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 2000 },
        circuitBreaker: { enabled: true, failureThreshold: 5, cooldownMs: 30_000 },
      },
      codeMode: {
        enabled: true,
        runtime: 'quickjs',
        poolSize: 2,
        maxQueue: 64,
        maxRunsPerProcess: 1,
        defaults: { timeoutMs: 30_000, maxToolCalls: 100, memoryMb: 64 },
        maxima: { timeoutMs: 120_000, maxToolCalls: 1000, memoryMb: 512 },
        maxLogBytes: 65_536,
        maxResultBytes: 1_048_576,
      },
      toolsets: [],
      skills: [],
      auth: { apiKeys: [] },
      cache: {
        enabled: false,
        ttlMs: 60_000,
        maxEntries: 1000,
        maxBytes: 67_108_864,
        maxEntryBytes: 1_048_576,
        partition: 'scope',
      },
      rateLimits: [],
      policies: { rules: [], hideDenied: true },
      shutdown: { graceMs: 10_000 },
      observability: {
        logLevel: 'info',
        callLogs: { enabled: true, args: true, maxStringLength: 256 },
        metrics: { enabled: true, process: true },
      },
      secrets: { providers: [{ type: 'env' }] },
      state: { driver: 'sqlite', dir: '.aperture' },
      trust: { mode: 'warn', pinned: {}, maxDescriptionChars: 8000 },
      approvals: { via: 'auto', timeoutMs: 300_000 },
      audit: { calls: false },
      sandbox: { default: 'on', engine: 'auto', audit: 'refused' },
    });
  });

  it('is deeply frozen, so no consumer can change what the others see', () => {
    expect(Object.isFrozen(DEFAULT_CONFIG)).toBe(true);
    expect(Object.isFrozen(DEFAULT_CONFIG.server)).toBe(true);
    expect(Object.isFrozen(DEFAULT_CONFIG.http.cors.origins)).toBe(true);
  });

  it('has no mcpServers key: it is merged into servers', () => {
    expect('mcpServers' in DEFAULT_CONFIG).toBe(false);
  });
});

describe('configSchema sections', () => {
  it('fills defaults inside a partially given section', () => {
    const config = configSchema.parse({ server: { port: 9000 }, execution: { maxChainSteps: 5 } });
    expect(config.server).toEqual({ name: 'aperture', host: '127.0.0.1', port: 9000 });
    expect(config.execution).toEqual({ timeoutMs: 60_000, maxChainSteps: 5, maxResultBytes: 16_777_216 });
  });

  it('normalises the short exposure form to the object form', () => {
    expect(
      configSchema.parse({ exposure: { mode: 'metatools', pinned: ['time:now', 'gh:*_issue'] } }).exposure
        .pinned,
    ).toEqual(['time:now', 'gh:*_issue']);
    expect(configSchema.parse({ exposure: 'flat' }).exposure).toEqual({
      mode: 'flat',
      encoding: 'o200k_base',
      pinned: [],
      connectorTools: false,
    });
    expect(configSchema.parse({ exposure: { budgetTokens: 500, encoding: 'cl100k_base' } }).exposure).toEqual(
      {
        mode: 'auto',
        budgetTokens: 500,
        encoding: 'cl100k_base',
        pinned: [],
        connectorTools: false,
      },
    );
  });

  it('accepts numbers and booleans spelled as strings, as ${env:…} produces them', () => {
    const config = configSchema.parse({ server: { port: '9001' }, tools: { builtin: 'false' } });
    expect(config.server.port).toBe(9001);
    expect(config.tools.builtin).toBe(false);
  });

  it('accepts the string spellings in every section, not only in some', () => {
    const config = configSchema.parse({
      codeMode: { enabled: 'false' },
      search: {
        learning: { enabled: 'false', maxQueriesPerTool: '7', similarQueries: '0', maxQueryVectors: '9' },
      },
      openapi: [{ spec: './a.yaml', namespace: 'a', allowPrivateNetwork: 'true' }],
      agents: { b: { url: 'http://127.0.0.1:9/', allowPrivateNetwork: 'true' } },
      auth: {
        apiKeys: [{ key: 'k'.repeat(16), name: 'i', admin: 'true' }],
      },
    });
    expect(config.codeMode.enabled).toBe(false);
    expect(config.search.learning).toMatchObject({
      enabled: false,
      maxQueriesPerTool: 7,
      similarQueries: 0,
      maxQueryVectors: 9,
    });
    expect(config.openapi[0]?.allowPrivateNetwork).toBe(true);
    expect(config.agents.b?.allowPrivateNetwork).toBe(true);
    expect(config.auth.apiKeys[0]?.admin).toBe(true);
  });

  it('validates startup.waitMs: 0 to 600000 ms, no other key', () => {
    expect(configSchema.parse({ startup: { waitMs: 0 } }).startup).toEqual({ waitMs: 0 });
    expect(issuePaths({ startup: { waitMs: -1 } })).toEqual(['startup.waitMs']);
    expect(issuePaths({ startup: { waitMs: 600_001 } })).toEqual(['startup.waitMs']);
    // Unknown keys are reported at their object (the loader names the key itself).
    expect(issuePaths({ startup: { waitMS: 10 } })).toEqual(['startup']);
    expect(configSchema.parse({ console: { enabled: false } }).console).toEqual({ enabled: false });
    expect(issuePaths({ console: { enabled: 'yes' } })).toEqual(['console.enabled']);
    expect(issuePaths({ console: { enable: true } })).toEqual(['console']);
  });

  it('rejects out-of-range numbers', () => {
    expect(issuePaths({ server: { port: 70000 } })).toEqual(['server.port']);
    expect(issuePaths({ execution: { maxChainSteps: 101 } })).toEqual(['execution.maxChainSteps']);
    expect(issuePaths({ http: { maxBodyBytes: 0 } })).toEqual(['http.maxBodyBytes']);
    expect(issuePaths({ exposure: { budgetTokens: 1.5 } })).toEqual(['exposure.budgetTokens']);
    expect(issuePaths({ exposure: { encoding: 'p50k_base' } })).toEqual(['exposure.encoding']);
  });

  it('accepts "*" and bare origins for CORS, rejects origins with a path', () => {
    expect(issuePaths({ http: { cors: { origins: ['*', 'https://app.example.com'] } } })).toEqual([]);
    expect(issuePaths({ http: { cors: { origins: ['https://app.example.com/'] } } })).toEqual([
      'http.cors.origins[0]',
    ]);
  });

  it('accepts host names in http.allowedHosts, nothing that carries a scheme, port or wildcard', () => {
    expect(issuePaths({ http: { allowedHosts: ['aperture.internal', 'gw-1.example.com'] } })).toEqual([]);
    expect(
      issuePaths({ http: { allowedHosts: ['https://x.example', 'x.example:80', '*.example.com', ''] } }),
    ).toEqual([
      'http.allowedHosts[0]',
      'http.allowedHosts[1]',
      'http.allowedHosts[2]',
      'http.allowedHosts[3]',
    ]);
  });

  it('bounds the connection limits and deadlines of http', () => {
    expect(issuePaths({ http: { maxConnections: 0, maxConnectionsPerAddress: 0 } })).toEqual([
      'http.maxConnections',
      'http.maxConnectionsPerAddress',
    ]);
    // Seconds, not minutes: a deadline of 301 s let trickling clients hold connections.
    expect(issuePaths({ http: { headersTimeoutMs: 301_000, requestTimeoutMs: 500 } })).toEqual([
      'http.headersTimeoutMs',
      'http.requestTimeoutMs',
    ]);
  });

  it('accepts the loosely typed sections and $schema, and drops $schema from the output', () => {
    const config = configSchema.parse({
      $schema: './aperture.schema.json',
      openapi: [{ spec: './petstore.yaml', namespace: 'pets' }],
      agents: { helper: { url: 'http://localhost:9999' } },
      toolsets: [{ name: 'ro' }],
      auth: { apiKeys: [] },
      observability: { logLevel: 'debug', otlp: { endpoint: 'http://localhost:4318' }, metrics: false },
    });
    expect(config.openapi).toEqual([{ spec: './petstore.yaml', namespace: 'pets' }]);
    expect(config.observability.otlp).toEqual({ endpoint: 'http://localhost:4318' });
    expect('$schema' in config).toBe(false);
  });

  it('validates openapi and agents entries, naming the bad key', () => {
    const bad = configSchema.safeParse({
      openapi: [{ spec: 'x.yaml', namespace: 'bad ns', bogus: 1 }],
      agents: { helper: { url: 'ftp://x' } },
    });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join('.')).sort();
    expect(paths).toEqual(['agents.helper.url', 'openapi.0', 'openapi.0.namespace']);
  });

  it('reads a null section (YAML `servers:` with nothing under it) as not set', () => {
    expect(configSchema.parse({ servers: null, tools: null }).tools).toEqual({ builtin: true, modules: [] });
  });

  it('validates override keys and override bodies', () => {
    const config = configSchema.parse({
      overrides: {
        '*': { annotations: {} },
        everything: { tags: ['demo'] },
        'everything:echo': { name: 'say', hidden: false, args: { fixed: { a: 1 }, defaults: {} } },
      },
    });
    expect(config.overrides['everything:echo']?.name).toBe('say');
    // `overrides` is a mapping or a list (files beside inline rules): the issue paths users see are
    // the mapping's own, as `parseConfigValue` reports them.
    const paths = (raw: unknown) => failureOf(() => parseConfigValue(raw)).details?.path;
    expect(paths({ overrides: { 'not a key': {} } })).toBe('overrides["not a key"]');
    expect(paths({ overrides: { x: { name: 'has space' } } })).toBe('overrides.x.name');
    expect(paths({ overrides: [{ x: {} }, { x: { name: 'has space' } }] })).toBe('overrides[1].x.name');
  });
});

describe('configSchema servers', () => {
  it('parses a stdio entry with defaults, kind and namespace filled in', () => {
    const config = configSchema.parse({ servers: { fs: { command: 'npx' } } });
    expect(config.servers.fs).toEqual({
      kind: 'stdio',
      command: 'npx',
      args: [],
      env: {},
      enabled: true,
      prefix: true,
      relistIntervalMs: 300_000,
      maxSessionLinks: 8,
      namespace: 'fs',
    });
  });

  it('parses a remote entry with transport auto by default', () => {
    const config = configSchema.parse({
      servers: { r: { url: 'https://example.com/mcp', namespace: 'rem' } },
    });
    expect(config.servers.r).toEqual({
      kind: 'remote',
      url: 'https://example.com/mcp',
      transport: 'auto',
      headers: {},
      enabled: true,
      prefix: true,
      relistIntervalMs: 300_000,
      maxSessionLinks: 8,
      namespace: 'rem',
    });
  });

  it('maps the `type` of Claude Code / Cursor configs onto the transport', () => {
    const config = configSchema.parse({
      mcpServers: {
        a: { type: 'http', url: 'http://localhost:1/mcp' },
        b: { type: 'sse', url: 'http://localhost:2/sse' },
        c: { type: 'stdio', command: 'node', args: ['server.js'] },
      },
    });
    expect(config.servers.a).toMatchObject({ kind: 'remote', transport: 'streamable-http' });
    expect(config.servers.b).toMatchObject({ kind: 'remote', transport: 'sse' });
    expect(config.servers.c).toMatchObject({ kind: 'stdio', command: 'node' });
    expect(
      issuePaths({ servers: { d: { type: 'sse', transport: 'streamable-http', url: 'http://x' } } }),
    ).toEqual(['servers.d.transport']);
  });

  it('turns scalar env values into strings', () => {
    const config = configSchema.parse({ servers: { s: { command: 'x', env: { PORT: 3000, DEBUG: true } } } });
    expect(config.servers.s).toMatchObject({ env: { PORT: '3000', DEBUG: 'true' } });
  });

  it('rejects an entry with both command and url, or with neither', () => {
    const both = configSchema.safeParse({ servers: { x: { command: 'a', url: 'http://b' } } });
    expect(both.error?.issues[0]?.message).toMatch(/both "command" and "url"/);
    const neither = configSchema.safeParse({ servers: { x: { args: [] } } });
    expect(neither.error?.issues[0]?.message).toMatch(/needs either "command".*or "url"/);
    expect(issuePaths({ servers: { x: 'npx' } })).toEqual(['servers.x']);
  });

  it('reports stdio-only keys on a remote entry as unknown, and a bad URL', () => {
    const result = configSchema.safeParse({ servers: { r: { url: 'ftp://x', args: [] } } });
    const found = result.error?.issues.map((issue) => [formatConfigPath(issue.path), issue.code]);
    expect(found?.sort()).toEqual([
      ['servers.r', 'unrecognized_keys'],
      ['servers.r.url', 'custom'],
    ]);
  });

  it('does not let users set the internal `kind` discriminator', () => {
    expect(issuePaths({ servers: { x: { kind: 'remote', command: 'a' } } })).toEqual(['servers.x.kind']);
  });

  it('normalises keys that are not namespaces, refuses keys with nothing usable unless `namespace` is given', () => {
    expect(
      configSchema.parse({ servers: { 'my server': { command: 'a' } } }).servers['my server']?.namespace,
    ).toBe('my-server');
    expect(issuePaths({ servers: { '!!': { command: 'a' } } })).toEqual(['servers["!!"]']);
    const config = configSchema.parse({ servers: { 'my server': { command: 'a', namespace: 'mine' } } });
    expect(config.servers['my server']?.namespace).toBe('mine');
    expect(issuePaths({ servers: { a: { command: 'a', namespace: 'bad ns' } } })).toEqual([
      'servers.a.namespace',
    ]);
  });

  it('merges mcpServers into servers', () => {
    const config = configSchema.parse({
      servers: { a: { command: 'a' } },
      mcpServers: { b: { url: 'http://localhost/mcp' } },
    });
    expect(Object.keys(config.servers)).toEqual(['a', 'b']);
    expect('mcpServers' in config).toBe(false);
  });

  it('rejects a key present in both servers and mcpServers, naming it', () => {
    const result = configSchema.safeParse({
      servers: { dup: { command: 'a' } },
      mcpServers: { dup: { command: 'b' } },
    });
    expect(result.error?.issues).toHaveLength(1);
    expect(formatConfigPath(result.error?.issues[0]?.path ?? [])).toBe('mcpServers.dup');
    expect(result.error?.issues[0]?.message).toContain('"dup"');
  });

  it('rejects two enabled servers sharing a namespace, allows it when one is disabled', () => {
    expect(
      issuePaths({ servers: { a: { command: 'a', namespace: 'n' }, b: { command: 'b', namespace: 'n' } } }),
    ).toEqual(['servers.b']);
    expect(
      issuePaths({
        servers: { a: { command: 'a', namespace: 'n' }, b: { command: 'b', namespace: 'n', enabled: false } },
      }),
    ).toEqual([]);
  });
});

describe('deepFreeze', () => {
  it('freezes nested objects and arrays and returns its argument', () => {
    const value = { a: { b: [1, { c: 2 }] } };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
  });
});

describe('observability section', () => {
  it('reads `false` and `true` (also as strings from ${env:…}) as the short form of `enabled`', () => {
    const off = configSchema.parse({ observability: { metrics: false, callLogs: 'false' } }).observability;
    expect(off.metrics).toEqual({ enabled: false, process: true });
    expect(off.callLogs).toEqual({ enabled: false, args: true, maxStringLength: 256 });
    const on = configSchema.parse({ observability: { metrics: 'true' } }).observability;
    expect(on.metrics.enabled).toBe(true);
  });

  it('takes the object forms and validates them, naming the bad key', () => {
    const parsed = configSchema.parse({
      observability: {
        metrics: { process: false, durationBucketsMs: [1, 5, 10] },
        callLogs: { args: false, maxStringLength: 64 },
        otlp: { endpoint: 'http://127.0.0.1:4318', headers: { 'x-api-key': 'k' } },
      },
    }).observability;
    expect(parsed.metrics).toEqual({ enabled: true, process: false, durationBucketsMs: [1, 5, 10] });
    expect(parsed.callLogs).toEqual({ enabled: true, args: false, maxStringLength: 64 });
    const bad = configSchema.safeParse({
      observability: {
        metrics: { durationBucketsMs: [5, 1], bogus: 1 },
        callLogs: { maxStringLength: -1 },
        otlp: { endpoint: 'collector:4318' },
      },
    });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path.join('.')).sort()).toEqual([
      'observability.callLogs.maxStringLength',
      'observability.metrics',
      'observability.metrics.durationBucketsMs',
      'observability.otlp.endpoint',
    ]);
  });
});
