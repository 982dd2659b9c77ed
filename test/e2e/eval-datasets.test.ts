import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI } from './gateway-process.js';

const exec = promisify(execFile);

describe('aperture eval: the data sets that ship', () => {
  it('--help lists the shipped data sets with their source and licence, and no folder the repository lacks', async () => {
    const { stdout } = await exec(process.execPath, [CLI, 'eval', '--help']);
    expect(stdout).toMatch(/mini +3 tools, 2 queries.*written for Aperture's own tests; Apache-2\.0/);
    expect(stdout).not.toMatch(/toollens|tool-retrieval|livemcpbench|toolbench|\bmetatool\b/i);
  });

  it('runs a shipped data set by name', async () => {
    const { stdout } = await exec(process.execPath, [CLI, 'eval', '--dataset', 'mini', '--json']);
    expect(JSON.parse(stdout).queries).toBe(2);
  });

  it('an unknown name is one line naming the data sets there are', async () => {
    const failure = await exec(process.execPath, [CLI, 'eval', '--dataset', 'toollens']).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr.trim().split('\n')).toHaveLength(1);
    expect(failure?.stderr).toContain('Unknown data set "toollens"');
    expect(failure?.stderr).toContain('mini (3 tools');
  });
});
