import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAUNCHER_SCRIPT } from './sandbox-launcher.js';
import type { SandboxProfile } from './sandbox-profile.js';
import { resolveCommand, sandboxedSpawnArgs } from './sandboxed-spawn.js';

const scratchDir = mkdtempSync(path.join(tmpdir(), 'spawn-args-'));
const profile = (more: Partial<SandboxProfile> = {}): SandboxProfile => ({
  label: 'x',
  bwrap: '/usr/bin/bwrap',
  scratchDir,
  writable: [],
  deny: [],
  network: { mode: 'open' },
  ...more,
});

describe('sandboxedSpawnArgs', () => {
  it('starts bubblewrap around the command found on the host, with only the base variables and its own', () => {
    process.env.SANDBOX_SPAWN_TEST_SECRET = 'gateway-only';
    const run = sandboxedSpawnArgs(profile(), { command: 'node', args: ['server.js'], env: { KEY: 'v' } });
    expect(run.command).toBe('/usr/bin/bwrap');
    const dash = run.args.indexOf('--');
    expect(run.args.slice(dash + 1)).toEqual([
      resolveCommand('node', process.env.PATH ?? '', '/'),
      'server.js',
    ]);
    expect(Object.keys(run.env).sort()).toEqual(['HOME', 'KEY', 'LANG', 'PATH', 'TMPDIR']);
    expect(run.env.HOME).toBe(scratchDir);
    expect(run.env.TMPDIR).toBe(scratchDir);
    expect(JSON.stringify(run)).not.toContain('gateway-only');
  });

  it('puts the launcher in front when limits or an allow list need it, placeholders in place of bound secrets', () => {
    const run = sandboxedSpawnArgs(
      profile({ network: { mode: 'allow', allow: ['x.test'] }, limits: { pids: 4 } }),
      { command: 'node', args: ['s.js'], env: { TOKEN: 'real-token-value-83' } },
      { proxySocket: '/tmp/p.sock', placeholders: { TOKEN: 'placeholder' } },
    );
    const inner = run.args.slice(run.args.indexOf('--') + 1);
    expect(inner[0]).toBe(process.execPath);
    expect(inner[2]).toBe(LAUNCHER_SCRIPT);
    expect(JSON.parse(inner[3] as string)).toMatchObject({
      args: ['s.js'],
      proxySocket: '/tmp/p.sock',
      limits: { pids: 4 },
    });
    expect(run.env.TOKEN).toBe('placeholder');
    expect(JSON.stringify(run)).not.toContain('real-token-value-83');
  });

  it('says ENOENT, as spawn would, for a command the host does not have', () => {
    expect(() =>
      sandboxedSpawnArgs(profile(), { command: 'no-such-command-4711', args: [], env: {} }),
    ).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });
});
