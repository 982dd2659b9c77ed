// biome-ignore-all lint/suspicious/noTemplateCurlyInString: entries hold ${secret:…} references on purpose.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { withoutServerEntry, withServerEntry } from './config-file-edit.js';

const ENTRY = { command: 'npx', args: ['-y', 'pkg@1.0.0'], env: { TOKEN: '${secret:TOKEN}' } };

describe('withServerEntry', () => {
  it('keeps every byte of the YAML file and adds the entry after the last server', () => {
    const text = [
      '# top',
      'exposure: flat # inline',
      'servers:',
      '  # the memory server',
      '  memory: { command: npx, args: [-y, "@modelcontextprotocol/server-memory"] }',
      'registries:',
      '  - { url: "http://127.0.0.1:1", name: x }',
      '',
    ].join('\n');
    const next = withServerEntry(text, 'a.yaml', 'added', ENTRY, 'added by aperture add: x');
    const head = text.split('registries:')[0] ?? '';
    expect(next.startsWith(head)).toBe(true);
    expect(next.endsWith('registries:\n  - { url: "http://127.0.0.1:1", name: x }\n')).toBe(true);
    expect(next).toContain('  # added by aperture add: x\n  added:\n    command: npx\n');
    expect(parse(next).servers.added).toEqual(ENTRY);
    expect(withoutServerEntry(next, 'a.yaml', 'added')).toBe(text);
  });

  it('writes under an empty `servers:` (its comments kept) and creates the section when absent', () => {
    const empty = 'servers: # none yet\n  # commented: {}\nexposure: flat\n';
    const next = withServerEntry(empty, 'a.yaml', 'k', ENTRY);
    expect(next.startsWith('servers: # none yet\n  k:\n')).toBe(true);
    expect(next).toContain('  # commented: {}\nexposure: flat\n');
    expect(parse(next).servers.k).toEqual(ENTRY);
    const absent = withServerEntry('exposure: flat', 'a.yaml', 'k', ENTRY);
    expect(parse(absent)).toEqual({ exposure: 'flat', servers: { k: ENTRY } });
    expect(parse(withServerEntry('', 'a.yaml', 'k', ENTRY))).toEqual({ servers: { k: ENTRY } });
  });

  it('uses mcpServers when the file has only that section; a flow map is rewritten, keeping its other keys', () => {
    expect(
      parse(withServerEntry('mcpServers:\n  a: { url: "http://x" }\n', 'a.yml', 'k', ENTRY)).mcpServers.k,
    ).toEqual(ENTRY);
    const flow = parse(withServerEntry('servers: { a: { url: "http://x" } }\n', 'a.yml', 'k', ENTRY));
    expect(Object.keys(flow.servers)).toEqual(['a', 'k']);
  });

  it('refuses a taken key (in either section), invalid YAML and a non-mapping top level', () => {
    expect(() => withServerEntry('mcpServers:\n  k: { url: "http://x" }\n', 'a.yaml', 'k', ENTRY)).toThrow(
      /already has a server "k"/,
    );
    expect(() => withServerEntry('servers: [\n', 'a.yaml', 'k', ENTRY)).toThrow(/not valid YAML/);
    expect(() => withServerEntry('- a\n', 'a.yaml', 'k', ENTRY)).toThrow(/not a mapping/);
  });

  it('edits JSON files keeping key order', () => {
    const text = JSON.stringify({ exposure: 'flat', mcpServers: { a: { url: 'http://x' } }, search: {} });
    const next = withServerEntry(text, 'c.json', 'k', ENTRY);
    expect(Object.keys(JSON.parse(next))).toEqual(['exposure', 'mcpServers', 'search']);
    expect(JSON.parse(next).mcpServers.k).toEqual(ENTRY);
    expect(JSON.parse(withoutServerEntry(next, 'c.json', 'k'))).toEqual(JSON.parse(text));
    expect(() => withoutServerEntry(text, 'c.json', 'nope')).toThrow(/has no server "nope"/);
  });
});
