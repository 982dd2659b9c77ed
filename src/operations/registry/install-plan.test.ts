// biome-ignore-all lint/suspicious/noTemplateCurlyInString: entries hold ${secret:…} references on purpose.
import { describe, expect, it } from 'vitest';
import { defaultKey, planInstall } from './install-plan.js';
import { neededVariables, parseServerJson } from './server-json.js';

const base = { values: {}, registry: 'test', hasCommand: () => false };

describe('parseServerJson', () => {
  it('reads the 2025-07 snake_case shape and the 2025-09 camelCase shape alike', () => {
    const old = parseServerJson(
      {
        name: 'io.github.o/s',
        description: 'd',
        version_detail: { version: '1.0.0' },
        packages: [
          {
            registry_name: 'npm',
            name: '@o/s',
            version: '1.0.0',
            environment_variables: [{ name: 'KEY', is_secret: true, is_required: true }],
          },
        ],
      },
      'x',
    );
    const current = parseServerJson(
      {
        server: {
          name: 'io.github.o/s',
          description: 'd',
          version: '1.0.0',
          packages: [
            {
              registryType: 'npm',
              identifier: '@o/s',
              version: '1.0.0',
              transport: { type: 'stdio' },
              environmentVariables: [{ name: 'KEY', isSecret: true, isRequired: true }],
            },
          ],
        },
        _meta: {},
      },
      'x',
    );
    expect(old).toEqual(current);
    expect(current.packages[0]?.environmentVariables[0]).toEqual({
      name: 'KEY',
      isSecret: true,
      isRequired: true,
    });
  });

  it('refuses a document without a name, as a fault of the registry', () => {
    expect(() => parseServerJson({ description: 'x' }, 'registry r')).toThrow(
      expect.objectContaining({
        code: 'backend_unavailable',
        message: 'registry r: not a server.json document (no "name")',
      }),
    );
  });
});

describe('planInstall', () => {
  const npm = parseServerJson(
    {
      name: 'io.github.acme/weather-server',
      version: '2.1.0',
      packages: [
        {
          registryType: 'npm',
          identifier: '@acme/weather',
          transport: { type: 'stdio' },
          packageArguments: [
            { type: 'positional', value: 'serve' },
            { type: 'named', name: '--units', default: 'metric' },
          ],
          environmentVariables: [
            { name: 'WEATHER_API_KEY', isSecret: true, isRequired: true },
            { name: 'REGION', isRequired: true },
            { name: 'LOG', default: 'info' },
          ],
        },
      ],
      remotes: [{ type: 'streamable-http', url: 'https://weather.example/mcp' }],
    },
    'x',
  );

  it('prefers the npm package, pinned to the version, secrets as references whatever was passed', () => {
    const plan = planInstall(npm, { ...base, values: { REGION: 'eu', WEATHER_API_KEY: 'literal' } });
    expect(plan.key).toBe('weather-server');
    expect(plan.entry).toEqual({
      command: 'npx',
      args: ['-y', '@acme/weather@2.1.0', 'serve', '--units', 'metric'],
      env: { WEATHER_API_KEY: '${secret:WEATHER_API_KEY}', REGION: 'eu', LOG: 'info' },
    });
    expect(plan.secrets).toEqual(['WEATHER_API_KEY']);
    expect(JSON.stringify(plan)).not.toContain('literal');
  });

  it('names every missing required value; no plan', () => {
    expect(() => planInstall(npm, base)).toThrow(/needs "REGION"; pass --env REGION=VALUE/);
  });

  it('fills remote URL and header templates; a secret header is a reference', () => {
    const remote = parseServerJson(
      {
        name: 'io.example/r',
        version: '1.0.0',
        remotes: [
          {
            type: 'sse',
            url: 'https://{tenant}.example/sse',
            variables: { tenant: { isRequired: true } },
            headers: [{ name: 'Authorization', value: 'Bearer {token}', isSecret: true, isRequired: true }],
          },
        ],
      },
      'x',
    );
    expect(neededVariables(remote).map((v) => v.name)).toEqual(['tenant', 'token']);
    const plan = planInstall(remote, { ...base, values: { tenant: 'acme' } });
    expect(plan.entry).toEqual({
      url: 'https://acme.example/sse',
      transport: 'sse',
      headers: { Authorization: 'Bearer ${secret:token}' },
    });
  });

  it('runs PyPI with uvx and OCI with docker when they are on PATH, and says what is missing when not', () => {
    const pypi = parseServerJson(
      {
        name: 'io.example/p',
        version: '0.6.2',
        packages: [{ registryType: 'pypi', identifier: 'mcp-time' }],
      },
      'x',
    );
    expect(planInstall(pypi, { ...base, hasCommand: (c) => c === 'uvx' }).entry).toEqual({
      command: 'uvx',
      args: ['mcp-time==0.6.2'],
    });
    expect(() => planInstall(pypi, base)).toThrow(
      expect.objectContaining({
        code: 'invalid_request',
        message: expect.stringContaining(
          'can only be installed as pypi: Python packages run with uv (`uvx`), and `uvx` is not on PATH',
        ),
      }),
    );
    const oci = parseServerJson(
      {
        name: 'io.example/o',
        version: '1.0.0',
        packages: [
          {
            registryType: 'oci',
            identifier: 'ghcr.io/o/s',
            environmentVariables: [{ name: 'A', default: '1' }],
          },
        ],
      },
      'x',
    );
    expect(planInstall(oci, { ...base, hasCommand: (c) => c === 'docker' }).entry).toEqual({
      command: 'docker',
      args: ['run', '-i', '--rm', '-e', 'A', 'ghcr.io/o/s:1.0.0'],
      env: { A: '1' },
    });
  });

  it('an MCPB package needs a valid fileSha256; keys must be usable; --as and trust are written', () => {
    const bundle = (sha?: string) =>
      parseServerJson(
        {
          name: 'io.example/b',
          packages: [
            { registryType: 'mcpb', identifier: 'https://x/b.mcpb', ...(sha ? { fileSha256: sha } : {}) },
          ],
        },
        'x',
      );
    expect(() => planInstall(bundle(), base)).toThrow(/no valid "fileSha256"/);
    expect(planInstall(bundle('a'.repeat(64)), base).bundle).toEqual({
      url: 'https://x/b.mcpb',
      sha256: 'a'.repeat(64),
    });
    expect(() => planInstall(npm, { ...base, key: 'no spaces', values: { REGION: 'eu' } })).toThrow(
      /cannot be a server key/,
    );
    expect(
      planInstall(npm, { ...base, key: 'w', trust: 'manual', values: { REGION: 'eu' } }).entry.trust,
    ).toBe('manual');
    expect(defaultKey('io.github.o/My Server')).toBe('My-Server');
  });
});

describe('npm integrity', () => {
  it('is read only from a package registry the document names', () => {
    const doc = (registryBaseUrl?: string) =>
      parseServerJson(
        {
          name: 'io.example/n',
          version: '1.0.0',
          packages: [
            { registryType: 'npm', identifier: '@o/n', ...(registryBaseUrl ? { registryBaseUrl } : {}) },
          ],
        },
        'x',
      );
    expect(planInstall(doc('https://registry.npmjs.org/'), base).npmVersionUrl).toBe(
      'https://registry.npmjs.org/@o/n/1.0.0',
    );
    expect(planInstall(doc(), base).npmVersionUrl).toBeUndefined();
  });
});
