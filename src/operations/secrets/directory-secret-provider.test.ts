import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectorySecretProvider } from './directory-secret-provider.js';
import { runSecretProviderContract } from './secret-provider.contract.js';
import { isValidSecretName } from './secret-provider.js';

const made: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'aperture-secrets-'));
  made.push(dir);
  return dir;
}

afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

runSecretProviderContract('DirectorySecretProvider', async (secrets) => {
  const dir = await tempDir();
  for (const [name, value] of Object.entries(secrets)) await writeFile(join(dir, name), value);
  return new DirectorySecretProvider({ path: dir });
});

describe('DirectorySecretProvider', () => {
  let root: string;
  let dir: string;

  beforeAll(async () => {
    // root/outside is next to the secrets directory: what `../outside` would reach.
    root = await tempDir();
    dir = join(root, 'secrets');
    await mkdir(dir);
    await writeFile(join(root, 'outside'), 'must-not-leak');
    await writeFile(join(dir, 'LF'), 'value\n');
    await writeFile(join(dir, 'CRLF'), 'value\r\n');
    await writeFile(join(dir, 'TWO'), 'value\n\n');
    await writeFile(join(dir, 'NONE'), 'value');
    await mkdir(join(dir, 'SUBDIR'));
    await mkdir(join(dir, '..data'));
    await writeFile(join(dir, '..data', 'LINKED'), 'from-kubernetes\n');
    await symlink(join('..data', 'LINKED'), join(dir, 'LINKED'));
  });

  it('trims exactly one trailing newline', async () => {
    const provider = new DirectorySecretProvider({ path: dir });
    expect(await provider.get('LF')).toBe('value');
    expect(await provider.get('CRLF')).toBe('value');
    expect(await provider.get('TWO')).toBe('value\n');
    expect(await provider.get('NONE')).toBe('value');
  });

  it('refuses names that would leave the directory', async () => {
    const provider = new DirectorySecretProvider({ path: dir });
    for (const name of ['../outside', '..', '.', 'a/../../outside', `${root}/outside`, '..data/LINKED']) {
      expect(await provider.get(name), name).toBeUndefined();
    }
    expect(isValidSecretName('../outside')).toBe(false);
    expect(isValidSecretName('.hidden')).toBe(false);
    expect(isValidSecretName('DB_PASS')).toBe(true);
    expect(isValidSecretName('tls.key')).toBe(true);
  });

  it('follows symlinks inside the directory, as Kubernetes secret volumes need', async () => {
    expect(await new DirectorySecretProvider({ path: dir }).get('LINKED')).toBe('from-kubernetes');
  });

  it('answers undefined for a directory, a missing directory and an unreadable file', async () => {
    expect(await new DirectorySecretProvider({ path: dir }).get('SUBDIR')).toBeUndefined();
    expect(await new DirectorySecretProvider({ path: join(root, 'nope') }).get('LF')).toBeUndefined();
    const locked = join(dir, 'LOCKED');
    await writeFile(locked, 'x');
    await chmod(locked, 0o000);
    try {
      // root reads any file anyway; for everyone else the file is unreadable, which is not an error.
      const expected = process.getuid?.() === 0 ? 'x' : undefined;
      expect(await new DirectorySecretProvider({ path: dir }).get('LOCKED')).toBe(expected);
    } finally {
      await chmod(locked, 0o600);
    }
  });

  it('is named after its absolute directory', () => {
    expect(new DirectorySecretProvider({ path: dir }).name).toBe(`directory:${dir}`);
  });
});
