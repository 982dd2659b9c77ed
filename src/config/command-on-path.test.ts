import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandExists, missingCommandWarnings } from './command-on-path.js';

describe('missingCommandWarnings', () => {
  const env = { PATH: path.dirname(process.execPath) };
  const node = path.basename(process.execPath);

  it('warns, naming the server, about a command that is not on PATH', () => {
    expect(
      missingCommandWarnings(
        {
          ok: { command: node },
          absolute: { command: process.execPath },
          typo: { command: 'nxp-not-a-command' },
          off: { command: 'nxp-not-a-command', enabled: false },
          remote: {},
        },
        env,
        process.cwd(),
      ),
    ).toEqual([
      'servers.typo.command: "nxp-not-a-command" is not found on PATH here; the server will fail to start unless the gateway\'s PATH at run time has it',
    ]);
  });

  it('resolves a relative command against the working directory', () => {
    expect(commandExists(`./${node}`, env, path.dirname(process.execPath))).toBe(true);
    expect(commandExists(`./${node}`, env, '/')).toBe(false);
  });
});
