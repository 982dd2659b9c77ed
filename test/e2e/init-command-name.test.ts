import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI } from './gateway-process.js';

const exec = promisify(execFile);

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

/** The environment of a shell outside npm: no `npm_*` variables (vitest may run under `npm test`). */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { HOME: home, APPDATA: '', ...extra };
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.toLowerCase().startsWith('npm_') && !(key in env)) env[key] = value;
  }
  return env;
}

describe('aperture init names the command the way the user ran it', () => {
  it('the installed bin (`aperture` on PATH): `aperture …`, never `npx aperture` (another npm package)', async () => {
    // What `npm install -g` makes: a link named `aperture` on PATH to dist/cli/main.js.
    const bin = path.join(home, 'bin');
    await exec('mkdir', ['-p', bin]);
    await symlink(CLI, path.join(bin, 'aperture'));
    const env = plainEnv();
    env.PATH = `${bin}${path.delimiter}${process.env.PATH ?? ''}`;
    const { stdout } = await exec('aperture', ['init', '--no-import'], { cwd: project, env });
    expect(stdout).toContain('Next: aperture config validate && aperture serve');
    expect(stdout).not.toContain('npx');
    const file = await readFile(path.join(project, 'aperture.yaml'), 'utf8');
    expect(file).toContain('# Check this file:  aperture config validate');
    expect(file).not.toContain('npx aperture');
  });

  it('`npx aperture` (npm marks it npm_command=exec): `npx aperture …`', async () => {
    const { stdout } = await exec(process.execPath, [CLI, 'init', '--no-import'], {
      cwd: project,
      env: plainEnv({ npm_command: 'exec' }),
    });
    expect(stdout).toContain('Next: npx aperture config validate && npx aperture serve');
    expect(await readFile(path.join(project, 'aperture.yaml'), 'utf8')).toContain(
      '# Serve it:         npx aperture serve',
    );
  });

  it('`node …/dist/cli/main.js` from another folder: that same command, absolute', async () => {
    const { stdout } = await exec(process.execPath, [CLI, 'init', '--no-import'], {
      cwd: project,
      env: plainEnv(),
    });
    expect(stdout).toContain(`Next: node ${CLI} config validate && node ${CLI} serve`);
  });

  it('`trust approve` of an unknown id points at `trust list` the same way', async () => {
    const result = await exec(
      'sh',
      ['-c', `ln -s "${CLI}" aperture && PATH=".:$PATH" aperture trust approve nope:nope`],
      {
        cwd: project,
        env: plainEnv({ APERTURE_CONFIG: '' }),
      },
    ).catch((error: { stderr: string; code: number }) => error);
    expect(result.stderr).toContain('`aperture trust list --all` lists them');
  });
});
