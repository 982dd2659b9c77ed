import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, type RunningGateway, startHttpGateway, structured } from './gateway-process.js';

/** The standard tools of `aperture serve` as an operator turns them on, driven over MCP and REST. */
describe('standard tools of `aperture serve`', () => {
  let gateway: RunningGateway;
  let dir: string;
  let site: Server;
  let siteUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-std-'));
    await mkdir(path.join(dir, 'work'));
    await writeFile(path.join(dir, 'work', 'notes.md'), '# notes\n');
    await writeFile(path.join(dir, 'private.txt'), 'not for agents');
    await symlink(path.join(dir, 'private.txt'), path.join(dir, 'work', 'link.txt'));
    site = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<h1>Local</h1>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'server: { name: aperture-std-e2e }',
        'observability: { logLevel: warn }',
        'tools:',
        '  builtin: false',
        '  standard:',
        '    fs: { root: ./work, write: true }',
        '    fetch: {}',
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await new Promise((resolve) => site?.close(resolve));
  });

  it('lists the std tools and reads, writes and guards files in the root', async () => {
    await using client = await connectHttp(gateway.url);
    const ids = structured(await client.callTool({ name: 'list_tools', arguments: {} })).tools.map(
      (t: { id: string }) => t.id,
    );
    expect(ids.sort()).toEqual(['std:fetch', 'std:list_dir', 'std:read_file', 'std:write_file']);
    const run = async (tool_id: string, args: Record<string, unknown>) =>
      structured(await client.callTool({ name: 'run_tool', arguments: { tool_id, args } }));

    const read = await run('std:read_file', { path: 'notes.md' });
    expect(read).toMatchObject({ content: '# notes\n', size: 8 });
    const sha = createHash('sha256').update('# notes\n').digest('hex');

    const escaped = await run('std:read_file', { path: '../private.txt' });
    expect(escaped.error.code).toBe('forbidden');
    const viaLink = await run('std:read_file', { path: 'link.txt' });
    expect(viaLink.error.code).toBe('forbidden');

    const stale = await run('std:write_file', {
      path: 'notes.md',
      content: 'x',
      expected_sha256: 'f'.repeat(64),
    });
    expect(stale.error.code).toBe('validation_input');
    expect(await readFile(path.join(dir, 'work', 'notes.md'), 'utf8')).toBe('# notes\n');
    const written = await run('std:write_file', {
      path: 'notes.md',
      content: '# v2\n',
      expected_sha256: sha,
    });
    expect(written.error).toBeUndefined();
    expect(await readFile(path.join(dir, 'work', 'notes.md'), 'utf8')).toBe('# v2\n');
  });

  it('refuses std:fetch of a loopback address by default, over REST too', async () => {
    const response = await fetch(`${gateway.url}/api/tools/std:fetch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: siteUrl }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ success: false, error: { code: 'forbidden' } });
  });
});
