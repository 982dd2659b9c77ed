import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSecretProvider } from './create-secret-provider.js';

describe('createSecretProvider', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aperture-create-secrets-'));
    await mkdir(join(dir, 'secrets'));
    await writeFile(join(dir, 'secrets', 'TOKEN'), 'from-file\n');
    await writeFile(join(dir, 'secrets', 'FILE_ONLY'), 'file-only\n');
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('chains the providers in list order, directory paths relative to baseDir', async () => {
    const env = { APP_TOKEN: 'from-env', TOKEN: 'unprefixed' };
    const envFirst = createSecretProvider(
      [
        { type: 'env', prefix: 'APP_' },
        { type: 'directory', path: 'secrets' },
      ],
      { env, baseDir: dir },
    );
    expect(await envFirst.get('TOKEN')).toBe('from-env');
    expect(await envFirst.get('FILE_ONLY')).toBe('file-only');
    expect(envFirst.name).toBe(`env:APP_*, directory:${join(dir, 'secrets')}`);

    const fileFirst = createSecretProvider(
      [
        { type: 'directory', path: './secrets' },
        { type: 'env', prefix: 'APP_' },
      ],
      { env, baseDir: dir },
    );
    expect(await fileFirst.get('TOKEN')).toBe('from-file');
  });

  it('takes absolute directory paths as they are', async () => {
    const chain = createSecretProvider([{ type: 'directory', path: join(dir, 'secrets') }], { baseDir: '/' });
    expect(await chain.get('TOKEN')).toBe('from-file');
  });
});
