import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import type { ToolContext, ToolDefinition } from '../../local/define-tool.js';
import { NEW_FILE_SENTINEL, stdFsTools } from './std-fs-tools.js';

const ctx = { signal: new AbortController().signal } as ToolContext;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('standard file tools', () => {
  let base: string;
  let root: string;
  let tools: Map<string, ToolDefinition>;
  const run = (name: string, args: Record<string, unknown>) =>
    Promise.resolve((tools.get(name) as ToolDefinition).handler(args, ctx)) as Promise<
      Record<string, unknown>
    >;
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a refusal');
      },
      (error: unknown) => error as GatewayError,
    );

  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), 'std-fs-'));
    root = path.join(base, 'root');
    await mkdir(path.join(root, 'docs'), { recursive: true });
    await writeFile(path.join(root, 'docs', 'a.txt'), 'hello');
    await writeFile(path.join(base, 'secret.txt'), 'outside');
    await mkdir(path.join(base, 'elsewhere'));
    await symlink(path.join(base, 'secret.txt'), path.join(root, 'leak.txt'));
    await symlink(path.join(base, 'elsewhere'), path.join(root, 'outdir'));
    await symlink(path.join(root, 'docs', 'a.txt'), path.join(root, 'inside-link.txt'));
    tools = new Map(
      stdFsTools({ root, write: true }).map((tool) => [`${tool.namespace}:${tool.name}`, tool]),
    );
  });

  afterAll(async () => {
    // mkdtemp directories are left to the OS temp cleaner, as other tests do.
  });

  it('reads and lists inside the root, through symlinks that stay inside', async () => {
    expect(await run('std:read_file', { path: 'docs/a.txt' })).toMatchObject({
      content: 'hello',
      size: 5,
      sha256: sha('hello'),
      truncated: false,
    });
    expect((await run('std:read_file', { path: 'inside-link.txt' })).content).toBe('hello');
    const listing = await run('std:list_dir', {});
    expect(listing.entries).toEqual(
      expect.arrayContaining([
        { name: 'docs', type: 'directory' },
        { name: 'leak.txt', type: 'symlink' },
      ]),
    );
  });

  it('refuses paths escaping the root by "..", by an absolute path and by a symlink (forbidden)', async () => {
    for (const outside of [
      '../secret.txt',
      'docs/../../secret.txt',
      path.join(base, 'secret.txt'),
      'leak.txt',
    ]) {
      const error = await refusal(run('std:read_file', { path: outside }));
      expect(error, outside).toBeInstanceOf(GatewayError);
      expect(error.code, outside).toBe('forbidden');
    }
    expect((await refusal(run('std:list_dir', { path: 'outdir' }))).code).toBe('forbidden');
    // Creating a file through a symlinked directory resolves the parent: refused, nothing written.
    const created = await refusal(run('std:write_file', { path: 'outdir/new.txt', content: 'x' }));
    expect(created.code).toBe('forbidden');
    const overwrite = await refusal(
      run('std:write_file', { path: 'leak.txt', content: 'x', expected_sha256: sha('outside') }),
    );
    expect(overwrite.code).toBe('forbidden');
    expect(await readFile(path.join(base, 'secret.txt'), 'utf8')).toBe('outside');
  });

  it('names a missing file or a wrong kind of entry as validation_input', async () => {
    expect((await refusal(run('std:read_file', { path: 'nope.txt' }))).code).toBe('validation_input');
    expect((await refusal(run('std:read_file', { path: 'docs' }))).code).toBe('validation_input');
    expect((await refusal(run('std:list_dir', { path: 'docs/a.txt' }))).code).toBe('validation_input');
  });

  it('creates a file without a hash, replaces it only with the current hash', async () => {
    expect(await run('std:write_file', { path: 'docs/new.md', content: 'v1' })).toMatchObject({
      created: true,
      sha256: sha('v1'),
    });
    const again = await refusal(run('std:write_file', { path: 'docs/new.md', content: 'v2' }));
    expect(again).toMatchObject({ code: 'validation_input', details: { path: '/expected_sha256' } });
    const sentinel = await refusal(
      run('std:write_file', { path: 'docs/new.md', content: 'v2', expected_sha256: NEW_FILE_SENTINEL }),
    );
    expect(sentinel.code).toBe('validation_input');
    const stale = await refusal(
      run('std:write_file', { path: 'docs/new.md', content: 'v2', expected_sha256: sha('v0') }),
    );
    expect(stale).toMatchObject({
      code: 'validation_input',
      message: expect.stringMatching(/changed since/),
    });
    expect(await readFile(path.join(root, 'docs/new.md'), 'utf8')).toBe('v1');
    expect(
      await run('std:write_file', { path: 'docs/new.md', content: 'v2', expected_sha256: sha('v1') }),
    ).toMatchObject({
      created: false,
    });
    expect(await readFile(path.join(root, 'docs/new.md'), 'utf8')).toBe('v2');
    const missingDir = await refusal(run('std:write_file', { path: 'nodir/x.txt', content: 'x' }));
    expect(missingDir.code).toBe('validation_input');
  });

  it('offers no write tool unless write is on', () => {
    expect(stdFsTools({ root, write: false }).map((t) => t.name)).toEqual(['read_file', 'list_dir']);
  });
});
