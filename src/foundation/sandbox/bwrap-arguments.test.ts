import { describe, expect, it } from 'vitest';
import { bwrapArguments } from './bwrap-arguments.js';
import type { SandboxProfile } from './sandbox-profile.js';

const profile = (more: Partial<SandboxProfile> = {}): SandboxProfile => ({
  label: 'files',
  bwrap: '/usr/bin/bwrap',
  scratchDir: '/state/sandbox/files',
  writable: ['/srv/shared'],
  deny: ['/home/u/.ssh', '/home/u/.netrc', '/home/u/.kube', '/state'],
  readable: ['/state/packages'],
  network: { mode: 'open' },
  ...more,
});

const kinds: Record<string, 'dir' | 'file'> = {
  '/home/u/.ssh': 'dir',
  '/home/u/.netrc': 'file',
  '/state': 'dir',
  '/state/packages': 'dir',
};
const kindOf = (path: string) => kinds[path];

/** The index of the option `flag` whose next arguments are `values`. */
function at(args: string[], flag: string, ...values: string[]): number {
  return args.findIndex((arg, i) => arg === flag && values.every((value, j) => args[i + 1 + j] === value));
}

describe('bwrapArguments', () => {
  it('binds the file system read-only, with its own /dev, /proc, PID namespace and death with the gateway', () => {
    const args = bwrapArguments(profile(), { command: 'node', args: [] }, { kindOf });
    expect(args.slice(0, 7)).toEqual(['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']);
    for (const flag of ['--unshare-pid', '--die-with-parent', '--unshare-ipc']) expect(args).toContain(flag);
    expect(args).not.toContain('--unshare-net');
    expect(args).not.toContain('--clearenv');
  });

  it('masks the existing deny paths: directories by a read-only tmpfs, files by /dev/null; absent ones are skipped', () => {
    const args = bwrapArguments(profile(), { command: 'node', args: [] }, { kindOf });
    expect(at(args, '--tmpfs', '/home/u/.ssh')).toBeGreaterThan(-1);
    expect(at(args, '--ro-bind', '/dev/null', '/home/u/.netrc')).toBeGreaterThan(-1);
    expect(args).not.toContain('/home/u/.kube');
    expect(at(args, '--remount-ro', '/home/u/.ssh')).toBeGreaterThan(
      at(args, '--bind', '/state/sandbox/files', '/state/sandbox/files'),
    );
  });

  it('binds the writable paths before the masks (a grant never uncovers a credential) and the scratch one after', () => {
    const args = bwrapArguments(profile(), { command: 'node', args: [] }, { kindOf });
    const write = at(args, '--bind', '/srv/shared', '/srv/shared');
    const mask = at(args, '--tmpfs', '/home/u/.ssh');
    const state = at(args, '--tmpfs', '/state');
    const packages = at(args, '--ro-bind', '/state/packages', '/state/packages');
    const scratch = at(args, '--bind', '/state/sandbox/files', '/state/sandbox/files');
    expect(write).toBeGreaterThan(-1);
    expect(write).toBeLessThan(mask);
    expect(packages).toBeGreaterThan(state);
    expect(scratch).toBeGreaterThan(state);
    expect(args.slice(-2)).toEqual(['--chdir', '/state/sandbox/files']);
  });

  it('unshares the network unless it is open, and binds the proxy socket', () => {
    const none = bwrapArguments(
      profile({ network: { mode: 'none' } }),
      { command: 'node', args: [] },
      { kindOf },
    );
    expect(none).toContain('--unshare-net');
    const allow = bwrapArguments(
      profile({ network: { mode: 'allow', allow: ['x.test'] } }),
      { command: 'node', args: [], cwd: '/work' },
      { kindOf, proxySocket: '/tmp/e/proxy.sock' },
    );
    expect(allow).toContain('--unshare-net');
    expect(at(allow, '--bind', '/tmp/e/proxy.sock', '/tmp/e/proxy.sock')).toBeGreaterThan(-1);
    expect(allow.slice(-2)).toEqual(['--chdir', '/work']);
  });
});
