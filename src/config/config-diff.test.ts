import { describe, expect, it } from 'vitest';
import { diffConfig, diffRecords } from './config-diff.js';
import { parseConfigValue } from './load-config.js';

const parse = (raw: Record<string, unknown>) => parseConfigValue(raw).config;

const base = {
  servers: {
    a: { command: 'node', args: ['a.js'] },
    b: { command: 'node', args: ['b.js'] },
    c: { url: 'http://127.0.0.1:9000/mcp' },
  },
  overrides: { 'a:echo': { description: 'Echo' }, b: { tags: ['demo'] } },
};

describe('diffConfig', () => {
  it('finds nothing between two parses of the same config', () => {
    const diff = diffConfig(parse(base), parse(structuredClone(base)));
    expect(diff.unchanged).toBe(true);
    expect(diff.sections).toEqual([]);
    expect(diff.servers).toEqual({ added: [], removed: [], changed: [] });
  });

  it('breaks servers down into added, removed and changed, leaving unchanged ones out', () => {
    const next = structuredClone(base) as Record<string, any>;
    delete next.servers.b;
    next.servers.d = { command: 'node', args: ['d.js'] };
    next.servers.c = { url: 'http://127.0.0.1:9001/mcp' };
    const diff = diffConfig(parse(base), parse(next));
    expect(diff.servers).toEqual({ added: ['d'], removed: ['b'], changed: ['c'] });
    expect(diff.sections).toEqual(['servers']);
    expect(diff.unchanged).toBe(false);
  });

  it('sees a change in a default the schema filled in (a server switched off)', () => {
    const next = structuredClone(base) as Record<string, any>;
    next.servers.a.enabled = false;
    expect(diffConfig(parse(base), parse(next)).servers.changed).toEqual(['a']);
  });

  it('breaks overrides down per key', () => {
    const next = structuredClone(base) as Record<string, any>;
    next.overrides['a:echo'] = { description: 'Say it back' };
    delete next.overrides.b;
    next.overrides['*'] = { tags: ['all'] };
    const diff = diffConfig(parse(base), parse(next));
    expect(diff.overrides).toEqual({ added: ['*'], removed: ['b'], changed: ['a:echo'] });
    expect(diff.sections).toEqual(['overrides']);
    expect(diff.servers).toEqual({ added: [], removed: [], changed: [] });
  });

  it('names every other top-level section that changed, generically', () => {
    const next = { ...structuredClone(base), search: { strategy: 'lexical' }, exposure: 'flat' };
    const diff = diffConfig(parse(base), parse(next));
    expect(diff.sections.sort()).toEqual(['exposure', 'search']);
  });

  it('keys OpenAPI services by namespace, whatever their order', () => {
    const one = { namespace: 'one', spec: './one.yaml' };
    const two = { namespace: 'two', spec: './two.yaml' };
    const diff = diffConfig(
      parse({ openapi: [one, two] }),
      parse({ openapi: [two, { ...one, spec: './one-v2.yaml' }] }),
    );
    expect(diff.openapi).toEqual({ added: [], removed: [], changed: ['one'] });
  });
});

describe('diffRecords', () => {
  it('compares nested values deeply, not by identity', () => {
    expect(diffRecords({ a: { x: [1, 2] } }, { a: { x: [1, 2] } })).toEqual({
      added: [],
      removed: [],
      changed: [],
    });
    expect(diffRecords({ a: { x: [1, 2] } }, { a: { x: [2, 1] } }).changed).toEqual(['a']);
  });
});
