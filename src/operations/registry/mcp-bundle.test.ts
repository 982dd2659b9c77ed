// biome-ignore-all lint/suspicious/noTemplateCurlyInString: manifests hold ${…} placeholders on purpose.
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { bundleEntry, readBundle } from './mcp-bundle.js';

const manifest = {
  name: 'b',
  version: '1.0.0',
  server: {
    type: 'python',
    entry_point: 'server/main.py',
    mcp_config: {
      command: 'python3',
      args: ['${__dirname}/server/main.py', '--root', '${user_config.root}'],
      env: { TOKEN: '${user_config.token}' },
    },
  },
  user_config: {
    root: { type: 'directory', default: '/srv' },
    token: { type: 'string', sensitive: true, required: true },
  },
};
const zip = (files: Record<string, string>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([name, text]) => [name, strToU8(text)])));

describe('MCP Bundles', () => {
  it('reads the manifest and fills __dirname, user config values and defaults; sensitive fields become secrets', () => {
    const { manifest: read } = readBundle(zip({ 'manifest.json': JSON.stringify(manifest) }), 'b.mcpb');
    expect(bundleEntry(read, '/state/bundles/b', {})).toEqual({
      entry: {
        command: 'python3',
        args: ['/state/bundles/b/server/main.py', '--root', '/srv'],
        env: { TOKEN: '${secret:token}' },
      },
      secrets: ['token'],
    });
    expect(bundleEntry(read, '/d', { root: '/data', token: 'literal' }).entry.args).toEqual([
      '/d/server/main.py',
      '--root',
      '/data',
    ]);
  });

  it('refuses what is not a bundle: not a zip, no manifest, no command, a file outside its folder', () => {
    expect(() => readBundle(strToU8('not a zip'), 'x.mcpb')).toThrow(
      /x.mcpb is not an MCP Bundle \(not a zip file/,
    );
    expect(() => readBundle(zip({ 'README.md': 'hi' }), 'x.mcpb')).toThrow(/no manifest.json at the root/);
    expect(() =>
      readBundle(zip({ 'manifest.json': JSON.stringify({ name: 'b', server: {} }) }), 'x.mcpb'),
    ).toThrow(/has no "server.mcp_config"/);
    expect(() =>
      readBundle(zip({ 'manifest.json': JSON.stringify(manifest), '../evil.sh': 'x' }), 'x.mcpb'),
    ).toThrow(/a file outside its folder \("..\/evil.sh"\)/);
  });
});
