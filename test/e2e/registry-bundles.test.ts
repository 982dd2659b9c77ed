// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests and configs hold ${…} placeholders on purpose.

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackRegistry, startLoopbackRegistry } from '../fixtures/registry/loopback-registry.js';
import { fixtureServerPath } from '../support/fixture-servers.js';
import { CLI, startHttpGateway } from './gateway-process.js';

/*
 * MCP Bundles: `aperture add ./file.mcpb` and a registry entry of type mcpb, with a bundle built
 * here (a manifest whose mcp_config uses ${__dirname} and ${user_config.…}, and a server entry
 * point). The bundle is unpacked into the state directory and served by a running gateway after
 * its reload; a bundle whose checksum differs from the registry's fileSha256 changes nothing.
 */

const exec = promisify(execFile);
const DRIFTING = fixtureServerPath('drifting-server.mjs');

function bundle(): Uint8Array {
  const manifest = {
    manifest_version: '0.2',
    name: 'echo-bundle',
    version: '1.2.0',
    description: 'Echoes text',
    author: { name: 'Test' },
    server: {
      type: 'node',
      entry_point: 'server/index.mjs',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/server/index.mjs'],
        env: { DRIFT_ECHO_DESCRIPTION: '${user_config.greeting}', ECHO_API_KEY: '${user_config.api_key}' },
      },
    },
    user_config: {
      greeting: {
        type: 'string',
        title: 'Greeting',
        description: 'The echo tool description',
        required: true,
      },
      api_key: { type: 'string', title: 'API key', sensitive: true, required: true },
    },
  };
  return zipSync({
    'manifest.json': strToU8(JSON.stringify(manifest)),
    'server/index.mjs': strToU8(`await import(${JSON.stringify(pathToFileURL(DRIFTING).href)});\n`),
  });
}

let dir: string;
let registry: LoopbackRegistry;
const bytes = bundle();
const sha = createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-bundles-'));
  await writeFile(path.join(dir, 'echo.mcpb'), bytes);
  const doc = (name: string, fileSha256: string) => ({
    name,
    description: 'An echo server as an MCP Bundle',
    version: '1.2.0',
    packages: [
      {
        registryType: 'mcpb',
        identifier: 'BASE/files/echo.mcpb',
        version: '1.2.0',
        fileSha256,
        transport: { type: 'stdio' },
      },
    ],
  });
  registry = await startLoopbackRegistry(
    [doc('io.example/echo-bundle', sha), doc('io.example/tampered-bundle', 'f'.repeat(64))],
    'ok',
    { 'echo.mcpb': bytes },
  );
});

afterAll(async () => {
  await registry?.[Symbol.asyncDispose]();
  await rm(dir, { recursive: true, force: true });
});

const stateDir = () => path.join(dir, 'state');
const cli = (args: string[]) =>
  exec(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, APERTURE_STATE_DIR: stateDir() },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

describe('MCP Bundles', { timeout: 120_000 }, () => {
  it('adds a local bundle: unpacked into the state directory, user config filled, the sensitive field a secret, served after reload', async () => {
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(config, 'exposure: flat\ntools: { builtin: false }\nservers:\n');
    Object.assign(process.env, { APERTURE_STATE_DIR: stateDir(), api_key: 'key-from-the-environment' });
    let gateway: Awaited<ReturnType<typeof startHttpGateway>>;
    try {
      gateway = await startHttpGateway(['--config', config], dir);
    } finally {
      delete process.env.APERTURE_STATE_DIR;
      delete process.env.api_key;
    }
    await using _gateway = gateway;
    const missing = await cli(['add', './echo.mcpb', '--config', config]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('echo-bundle needs "greeting"; pass --env greeting=VALUE');
    const added = await cli([
      'add',
      './echo.mcpb',
      '--env',
      'greeting=Says hello back.',
      '--trust',
      'auto',
      '--config',
      config,
    ]);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const text = readFileSync(config, 'utf8');
    const unpacked = path.join(stateDir(), 'bundles', `echo-bundle-1.2.0-${sha.slice(0, 12)}`);
    expect(text).toContain(`${unpacked}/server/index.mjs`);
    expect(text).toContain('ECHO_API_KEY: ${secret:api_key}');
    expect(text).toContain('DRIFT_ECHO_DESCRIPTION: Says hello back.');
    expect(existsSync(path.join(unpacked, 'manifest.json'))).toBe(true);

    const client = new Client({ name: 'bundles', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    try {
      let tools: { name: string; description?: string | undefined }[] = [];
      for (let i = 0; i < 200 && !tools.some((t) => t.name === 'echo-bundle__echo'); i++) {
        tools = (await client.listTools()).tools;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(tools.find((t) => t.name === 'echo-bundle__echo')?.description).toContain('Says hello back.');
    } finally {
      await client.close();
    }
  });

  it('installs a registry mcpb entry whose fileSha256 matches; refuses one that does not, writing nothing', async () => {
    const config = path.join(dir, 'registry.yaml');
    const start = `registries:\n  - { url: ${registry.url}, name: loopback }\nservers:\n`;
    await writeFile(config, start);
    const before = (await readdir(path.join(stateDir(), 'bundles'))).length;
    const tampered = await cli([
      'add',
      'io.example/tampered-bundle',
      '--env',
      'greeting=x',
      '--config',
      config,
    ]);
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain(
      `does not match its fileSha256: the registry says ${'f'.repeat(64)}, the file is ${sha}`,
    );
    expect(readFileSync(config, 'utf8')).toBe(start);
    expect((await readdir(path.join(stateDir(), 'bundles'))).length).toBe(before);
    const good = await cli([
      'add',
      'io.example/echo-bundle',
      '--as',
      'echoes',
      '--env',
      'greeting=x',
      '--config',
      config,
    ]);
    expect(good.stderr).toBe('');
    expect(readFileSync(config, 'utf8')).toContain('  echoes:\n');
    expect(readFileSync(config, 'utf8')).toContain('trust: scan');
  });
});
