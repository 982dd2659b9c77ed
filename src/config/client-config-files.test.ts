import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failure } from '../../test/support/expect-failure.js';
import { clientConfigCandidates, readClientServers, stripJsonComments } from './client-config-files.js';

describe('stripJsonComments', () => {
  it('removes comments and trailing commas, never inside strings, keeping every position', () => {
    const text =
      '{ "url": "http://x/a//b", // note\n  "q": "say \\"/*hi*/\\"", /* block\n */ "n": [1, 2,], }';
    const stripped = stripJsonComments(text);
    expect(JSON.parse(stripped)).toEqual({ url: 'http://x/a//b', q: 'say "/*hi*/"', n: [1, 2] });
    expect(stripped).toHaveLength(text.length);
    expect(stripped.split('\n')).toHaveLength(text.split('\n').length);
  });
});

describe('client config files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'aperture-client-files-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("looks in the project first, then the user's clients (Claude Desktop on every OS, Cursor, Claude Code)", () => {
    const paths = clientConfigCandidates({ home: '/h', cwd: '/p', appData: 'C:/AppData' }).map((c) => c.path);
    expect(paths).toEqual([
      join('/p', '.mcp.json'),
      join('/p', '.vscode', 'mcp.json'),
      join('/p', '.cursor', 'mcp.json'),
      join('/h', '.config', 'Claude', 'claude_desktop_config.json'),
      join('/h', 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
      join('C:/AppData', 'Claude', 'claude_desktop_config.json'),
      join('/h', '.cursor', 'mcp.json'),
      join('/h', '.claude.json'),
    ]);
  });

  it("reads mcpServers, VS Code servers, and ~/.claude.json with the project's own", async () => {
    const file = join(dir, 'c.json');
    await writeFile(file, JSON.stringify({ mcpServers: { a: { command: 'x' } }, servers: { ignored: {} } }));
    expect(await readClientServers(file, dir)).toEqual({ a: { command: 'x' } });
    await writeFile(file, '{ "servers": { "v": { "type": "stdio", "command": "y" }, }, }');
    expect(await readClientServers(file, dir)).toEqual({ v: { type: 'stdio', command: 'y' } });
    await mkdir(join(dir, 'proj'));
    await writeFile(
      file,
      JSON.stringify({
        mcpServers: { u: { command: 'u' } },
        projects: { [join(dir, 'proj')]: { mcpServers: { p: { command: 'p' } } } },
      }),
    );
    expect(await readClientServers(file, join(dir, 'proj'))).toEqual({
      u: { command: 'u' },
      p: { command: 'p' },
    });
    expect(await readClientServers(file, dir)).toEqual({ u: { command: 'u' } });
  });

  it('refuses a missing or non-JSON file with invalid_request', async () => {
    expect((await failure(readClientServers(join(dir, 'none.json'), dir))).code).toBe('invalid_request');
    await writeFile(join(dir, 'bad.json'), 'mcpServers: {}');
    const error = await failure(readClientServers(join(dir, 'bad.json'), dir));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('is not a JSON client config');
  });
});
