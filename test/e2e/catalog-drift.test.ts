import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureServerPath } from '../support/fixture-servers.js';
import { CLI, ROOT } from './gateway-process.js';

const run = promisify(execFile);

/**
 * `aperture catalog snapshot` and `aperture catalog diff` through the built CLI, against a real
 * downstream server (the drifting fixture) whose tool description differs between two configs.
 */
describe('catalog snapshot and diff', () => {
  let dir: string;
  const configWith = async (name: string, description: string, extra = '') => {
    const q = (value: string) => JSON.stringify(value);
    const file = path.join(dir, name);
    await writeFile(
      file,
      [
        'tools: { builtin: false }',
        'trust: { mode: off }',
        `state: { driver: memory }`,
        'servers:',
        `  drifting: { command: ${q(process.execPath)}, args: [${q(fixtureServerPath('drifting-server.mjs'))}], env: { DRIFT_ECHO_DESCRIPTION: ${q(description)} } }`,
        extra,
        '',
      ].join('\n'),
    );
    return file;
  };
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { cwd: ROOT });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-drift-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes every visible tool fingerprint, and reports what changed since, tool by tool', async () => {
    const before = await configWith('before.yaml', 'Echoes the text back.');
    const snapshotFile = path.join(dir, 'snapshot.json');
    await cli('catalog', 'snapshot', '--out', snapshotFile, '--config', before);
    const snapshot = JSON.parse(await readFile(snapshotFile, 'utf8')) as {
      tools: Record<string, { hash: string }>;
    };
    expect(Object.keys(snapshot.tools)).toEqual(['drifting:drift', 'drifting:echo']);
    expect(snapshot.tools['drifting:echo']?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);

    expect((await cli('catalog', 'diff', snapshotFile, '--config', before)).stdout).toMatch(
      /^No change since .*snapshot\.json .*\(2 tools\)\.$/m,
    );

    // The server now describes echo otherwise, and an override hides drift.
    const after = await configWith(
      'after.yaml',
      'Echoes the text back, shouting.',
      'overrides: { "drifting:drift": { hidden: true } }',
    );
    const diff = await cli('catalog', 'diff', snapshotFile, '--config', after);
    expect(diff.stdout).toContain('- drifting:drift  (removed)\n~ drifting:echo  (description changed)\n');
    expect(diff.stdout).toMatch(/0 added, 1 removed, 1 changed, 0 unchanged since/);
    const json = JSON.parse((await cli('catalog', 'diff', snapshotFile, '--json', '--config', after)).stdout);
    expect(json).toMatchObject({
      added: [],
      removed: ['drifting:drift'],
      changed: [{ id: 'drifting:echo', fields: ['description'] }],
    });
  }, 60_000);

  it('refuses a file that is not a snapshot with exit code 2', async () => {
    const bogus = path.join(dir, 'bogus.json');
    await writeFile(bogus, '{"hello": 1}');
    const config = await configWith('any.yaml', 'x');
    const failed = await cli('catalog', 'diff', bogus, '--config', config).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toMatch(
      /invalid_request: .*bogus\.json is not a catalog snapshot/,
    );
    const missing = await cli('catalog', 'diff', path.join(dir, 'nope.json'), '--config', config).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(missing).toMatchObject({ code: 2 });
  }, 30_000);
});
