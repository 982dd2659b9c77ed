// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config holds ${env:…} references on purpose.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startHttpGateway } from './gateway-process.js';

/*
 * Toolsets as code, as a team uses them: `toolset export` from the dev config, reviewed as a file,
 * `toolset diff` / `toolset import` into the prod config; and the toolset's description sent to
 * clients of `/mcp/{toolset}` as the server's instructions.
 */

const exec = promisify(execFile);
const SECRET = 'sk-live-0123456789abcdef';
let dir: string;

const DEV = [
  '# dev gateway',
  'auth:',
  '  apiKeys:',
  `    - { name: dev, key: ${SECRET} }`,
  'toolsets:',
  '  - name: ops',
  '    description: "Operations tools for team ${env:TEAM}: read-only."',
  '    tools: ["ops:restart", "monitor:*", "ops:restart"]',
  '    namespaces: [monitor, alerts]',
  '    exclude: ["monitor:delete_*"]',
  '    annotations: { readOnlyHint: true }',
  '  - name: other',
  '    tools: ["x:y"]',
  '',
].join('\n');

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-toolset-code-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const cli = (args: string[]) =>
  exec(process.execPath, [CLI, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, TEAM: 'blue' },
  }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

describe('toolsets as code', { timeout: 60_000 }, () => {
  it('export is deterministic and secret-free; import into an empty config reproduces it; diff shows a changed member', async () => {
    const dev = path.join(dir, 'dev.yaml');
    await writeFile(dev, DEV);
    const exported = await cli(['toolset', 'export', 'ops', '--config', dev]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(
      [
        'kind: aperture/toolset@1',
        'toolset:',
        '  name: ops',
        '  description: "Operations tools for team ${env:TEAM}: read-only."',
        '  namespaces:',
        '    - alerts',
        '    - monitor',
        '  tools:',
        '    - monitor:*',
        '    - ops:restart',
        '  exclude:',
        '    - monitor:delete_*',
        '  annotations:',
        '    readOnlyHint: true',
        '',
      ].join('\n'),
    );
    expect(exported.stdout).not.toContain(SECRET);
    expect(exported.stdout).not.toContain('blue');
    // The same toolset written in another order exports to the same bytes.
    const reordered = path.join(dir, 'reordered.yaml');
    await writeFile(
      reordered,
      DEV.replace('[monitor, alerts]', '[alerts, monitor]').replace(
        '"ops:restart", "monitor:*"',
        '"monitor:*", "ops:restart"',
      ),
    );
    expect((await cli(['toolset', 'export', 'ops', '--config', reordered])).stdout).toBe(exported.stdout);
    const json = await cli(['toolset', 'export', 'ops', '--format', 'json', '--config', dev]);
    expect(JSON.parse(json.stdout).toolset.tools).toEqual(['monitor:*', 'ops:restart']);

    const file = path.join(dir, 'ops.toolset.yaml');
    await writeFile(file, exported.stdout);
    const prod = path.join(dir, 'prod.yaml');
    await writeFile(prod, '# prod gateway: keep this comment\nexposure: flat\n');
    const imported = await cli(['toolset', 'import', file, '--config', prod]);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain('Imported toolset "ops"');
    expect(await readFile(prod, 'utf8')).toContain('# prod gateway: keep this comment\nexposure: flat\n');
    expect((await cli(['toolset', 'export', 'ops', '--config', prod])).stdout).toBe(exported.stdout);
    expect((await cli(['config', 'validate', prod])).code).toBe(0);
    expect((await cli(['toolset', 'diff', file, '--config', prod])).stdout).toBe(
      'Toolset "ops": no change.\n',
    );

    // A reviewed change: one member added, one removed.
    await writeFile(file, exported.stdout.replace('    - ops:restart', '    - ops:status'));
    const diff = await cli(['toolset', 'diff', file, '--config', prod]);
    expect(diff.stdout).toBe('+ tools: ops:status\n- tools: ops:restart\n');
    const before = await readFile(prod, 'utf8');
    await cli(['toolset', 'import', file, '--dry-run', '--config', prod]);
    expect(await readFile(prod, 'utf8')).toBe(before);
    await cli(['toolset', 'import', file, '--config', prod]);
    expect((await cli(['toolset', 'diff', file, '--config', prod])).stdout).toBe(
      'Toolset "ops": no change.\n',
    );
  });

  it('carries the overrides, pins and skills that go with the toolset; they round-trip exactly and keep ${secret:…} references', async () => {
    const dev = path.join(dir, 'dev-parts.yaml');
    await writeFile(
      dev,
      [
        DEV,
        'overrides:',
        '  "*": { tags: [everywhere] }',
        '  monitor: { tags: [watch] }',
        '  "ops:restart":',
        '    description: Restart one service',
        '    args: { fixed: { token: "${secret:OPS_TOKEN}" } }',
        '  "monitor:delete_all": { hidden: true }',
        '  "x:y": { description: not in ops }',
        'exposure:',
        '  mode: metatools',
        '  pinned: ["x:y", "ops:restart", "monitor:*"]',
        'skills:',
        '  - name: restart_and_check',
        '    description: Restart a service, then read its status',
        '    steps:',
        '      - { id: restart, tool: "ops:restart", args: { token: "${secret:OPS_TOKEN}" } }',
        '      - { id: check, tool: "monitor:status" }',
        '  - name: unrelated',
        '    description: Uses a tool outside ops',
        '    steps:',
        '      - { id: one, tool: "x:y" }',
        '      - { id: two, tool: "ops:restart" }',
        '',
      ].join('\n'),
    );
    const exported = await cli(['toolset', 'export', 'ops', '--config', dev]);
    expect(exported.code).toBe(0);
    const tail = exported.stdout.slice(exported.stdout.indexOf('overrides:'));
    expect(tail).toBe(
      [
        'overrides:',
        '  monitor:',
        '    tags:',
        '      - watch',
        '  ops:restart:',
        '    description: Restart one service',
        '    args:',
        '      fixed:',
        '        token: ${secret:OPS_TOKEN}',
        'pinned:',
        '  - monitor:*',
        '  - ops:restart',
        'skills:',
        '  - name: restart_and_check',
        '    description: Restart a service, then read its status',
        '    steps:',
        '      - id: restart',
        '        tool: ops:restart',
        '        args:',
        '          token: ${secret:OPS_TOKEN}',
        '      - id: check',
        '        tool: monitor:status',
        '',
      ].join('\n'),
    );
    // Secret-free: the reference, never a value (the API key of the config stays behind too).
    expect(exported.stdout).not.toContain(SECRET);
    expect(exported.stdout).toContain('${secret:OPS_TOKEN}');

    const file = path.join(dir, 'ops-parts.toolset.yaml');
    await writeFile(file, exported.stdout);
    const prod = path.join(dir, 'prod-parts.yaml');
    await writeFile(prod, '# prod gateway: keep this comment\nexposure: flat\n');
    expect((await cli(['toolset', 'diff', file, '--config', prod])).stdout).toBe(
      [
        '+ toolset ops (new)',
        '+ override: monitor',
        '+ override: ops:restart',
        '+ pinned: monitor:*',
        '+ pinned: ops:restart',
        '+ skill: restart_and_check',
        '',
      ].join('\n'),
    );
    const imported = await cli(['toolset', 'import', file, '--config', prod]);
    expect(imported.code).toBe(0);
    const written = await readFile(prod, 'utf8');
    expect(written).toContain('# prod gateway: keep this comment\n');
    expect(written).toMatch(/exposure:\n {2}mode: flat\n {2}pinned:\n/);
    // Loadable once the secret it names is given (here from the environment).
    const validate = await exec(process.execPath, [CLI, 'config', 'validate', prod], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, TEAM: 'blue', OPS_TOKEN: 'tok' },
    });
    expect(validate.stdout).toContain('valid');
    // Exactly the same file back out of the prod config.
    expect((await cli(['toolset', 'export', 'ops', '--config', prod])).stdout).toBe(exported.stdout);
    expect((await cli(['toolset', 'diff', file, '--config', prod])).stdout).toBe(
      'Toolset "ops": no change.\n',
    );

    // A reviewed change to an override and a skill shows in the diff and imports.
    await writeFile(
      file,
      exported.stdout
        .replace('description: Restart one service', 'description: Restart one service safely')
        .replace('      - id: check\n        tool: monitor:status\n', ''),
    );
    expect((await cli(['toolset', 'diff', file, '--config', prod])).stdout).toBe(
      '~ override: ops:restart\n~ skill: restart_and_check\n',
    );
    await cli(['toolset', 'import', file, '--config', prod]);
    expect((await cli(['toolset', 'export', 'ops', '--config', prod])).stdout).toBe(
      await readFile(file, 'utf8'),
    );

    // An invalid skill in the file is refused; nothing written.
    const before = await readFile(prod, 'utf8');
    const bad = path.join(dir, 'bad-skill.yaml');
    await writeFile(
      bad,
      `${exported.stdout.replace('    steps:\n      - id: restart', '    stepz:\n      - id: restart')}`,
    );
    const refused = await cli(['toolset', 'import', bad, '--config', prod]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not valid skills');
    expect(await readFile(prod, 'utf8')).toBe(before);
  });

  it('refuses an unknown toolset, a file that is not a toolset and an invalid toolset; nothing written', async () => {
    const config = path.join(dir, 'refuse.yaml');
    await writeFile(config, DEV);
    const missing = await cli(['toolset', 'export', 'nope', '--config', config]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No toolset "nope" in the config (it has "ops", "other")');
    const notToolset = path.join(dir, 'not.yaml');
    await writeFile(notToolset, 'servers: {}\n');
    expect((await cli(['toolset', 'import', notToolset, '--config', config])).stderr).toContain(
      'not a toolset file',
    );
    const invalid = path.join(dir, 'invalid.yaml');
    await writeFile(invalid, 'kind: aperture/toolset@1\ntoolset: { name: "bad name!", tools: ["a:b"] }\n');
    expect((await cli(['toolset', 'import', invalid, '--config', config])).stderr).toContain(
      'not a valid toolset: name',
    );
    expect(await readFile(config, 'utf8')).toBe(DEV);
  });

  it("sends a toolset's description as the instructions of /mcp/{toolset}", async () => {
    const config = path.join(dir, 'serve.yaml');
    await writeFile(
      config,
      'toolsets:\n  - { name: ops, description: "Restart and watch the services.", namespaces: [aperture] }\n',
    );
    await using gateway = await startHttpGateway(['--config', config], dir);
    const scoped = new Client({ name: 'toolset-code', version: '1.0.0' });
    await scoped.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp/ops`)));
    const whole = new Client({ name: 'toolset-code', version: '1.0.0' });
    await whole.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
    try {
      expect(scoped.getInstructions()).toMatch(/search_tools[\s\S]*\n\nRestart and watch the services\.$/);
      expect(whole.getInstructions()).not.toContain('Restart and watch');
    } finally {
      await scoped.close();
      await whole.close();
    }
  });
});
