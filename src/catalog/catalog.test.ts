import { describe, expect, it, vi } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from './catalog.js';
import type { CatalogChange } from './catalog-entry.js';

describe('Catalog', () => {
  it('replaces a source wholesale and reports added, updated and removed ids in one batch', () => {
    const catalog = new Catalog();
    const changes: CatalogChange[] = [];
    catalog.onChange((c) => changes.push(c));
    catalog.replaceSource('s', [makeEntry(makeTool('s:a')), makeEntry(makeTool('s:b'))]);
    catalog.flush();
    expect(changes).toHaveLength(1);
    expect(changes[0]?.added.sort()).toEqual(['s:a', 's:b']);

    catalog.replaceSource('s', [
      makeEntry(makeTool('s:b', { description: 'new' })),
      makeEntry(makeTool('s:c')),
    ]);
    catalog.flush();
    expect(changes[1]).toMatchObject({ added: ['s:c'], removed: ['s:a'], updated: ['s:b'] });
    expect(catalog.tools().map((t) => t.id)).toEqual(['s:b', 's:c']);
  });

  it('debounces bursts of changes into one event', async () => {
    vi.useFakeTimers();
    try {
      const catalog = new Catalog({ debounceMs: 20 });
      const listener = vi.fn();
      catalog.onChange(listener);
      for (let i = 0; i < 10; i++) catalog.upsert('s', makeEntry(makeTool(`s:t${i}`)));
      expect(listener).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(25);
      expect(listener).toHaveBeenCalledTimes(1);
      expect(listener.mock.calls[0]?.[0]).toMatchObject({ added: expect.any(Array) });
      expect((listener.mock.calls[0]![0] as CatalogChange).added).toHaveLength(10);
    } finally {
      vi.useRealTimers();
    }
  });

  it('folds an add then remove within a batch into nothing', () => {
    const catalog = new Catalog();
    const listener = vi.fn();
    catalog.onChange(listener);
    catalog.upsert('s', makeEntry(makeTool('s:x')));
    catalog.remove('s', 's:x');
    catalog.flush();
    expect(listener).toHaveBeenCalledWith(expect.objectContaining({ added: [], removed: [], updated: [] }));
  });

  it('bumps the version on every mutation', () => {
    const catalog = new Catalog();
    const v0 = catalog.version;
    catalog.upsert('s', makeEntry(makeTool('s:x')));
    const v1 = catalog.version;
    catalog.remove('s');
    expect(v1).toBeGreaterThan(v0);
    expect(catalog.version).toBeGreaterThan(v1);
    expect(catalog.size).toBe(0);
  });

  it('keeps an id with its first owner and refuses it to other sources', () => {
    const catalog = new Catalog();
    catalog.replaceSource('one', [makeEntry(makeTool('x:a'))]);
    expect(catalog.replaceSource('two', [makeEntry(makeTool('x:a')), makeEntry(makeTool('x:b'))])).toEqual([
      'x:a',
    ]);
    expect(() => catalog.upsert('two', makeEntry(makeTool('x:a')))).toThrow(/already registered/);
    expect(catalog.get('x:a')?.tool.origin.sourceId).toBe('test');
    catalog.remove('two');
    expect(catalog.get('x:a')).toBeDefined();
  });

  it('resolves versioned ids', () => {
    const catalog = new Catalog();
    catalog.upsert('s', makeEntry(makeTool('s:t', { version: '2' })));
    expect(catalog.get('s:t')?.tool.version).toBe('2');
    expect(catalog.get('s:t:2')).toBeDefined();
    expect(catalog.get('s:t:3')).toBeUndefined();
    expect(catalog.get('not an id')).toBeUndefined();
  });

  it('lists namespaces with counts', () => {
    const catalog = new Catalog();
    catalog.replaceSource('s', [
      makeEntry(makeTool('b:x')),
      makeEntry(makeTool('a:y')),
      makeEntry(makeTool('b:z')),
    ]);
    expect(catalog.namespaces()).toEqual([
      { namespace: 'a', tools: 1 },
      { namespace: 'b', tools: 2 },
    ]);
  });
});

describe('Catalog.setOverrides (a config reload)', () => {
  it('re-applies the new overrides to the tools every source published, reporting only what changed', async () => {
    const { ToolOverrides } = await import('./tool-overrides.js');
    const catalog = new Catalog({ overrides: new ToolOverrides({ 'a:one': { description: 'Old' } }) });
    catalog.replaceSource('a', [makeEntry(makeTool('a:one')), makeEntry(makeTool('a:two'))]);
    catalog.replaceSource('b', [makeEntry(makeTool('b:three'))]);
    catalog.flush();
    const untouched = catalog.get('b:three');
    const changes: CatalogChange[] = [];
    catalog.onChange((c) => changes.push(c));

    catalog.setOverrides(new ToolOverrides({ 'a:one': { description: 'New' }, 'a:two': { hidden: true } }));
    catalog.flush();

    expect(catalog.get('a:one')?.tool.description).toBe('New');
    expect(catalog.get('a:two')).toBeUndefined();
    // A tool no override touches keeps its entry: no change to report for it.
    expect(catalog.get('b:three')).toBe(untouched);
    expect(changes).toEqual([expect.objectContaining({ added: [], removed: ['a:two'], updated: ['a:one'] })]);

    // Hidden tools come back when their override goes: the source's own entries were kept.
    catalog.setOverrides(new ToolOverrides({}));
    expect(catalog.get('a:two')?.tool.id).toBe('a:two');
    expect(catalog.get('a:one')?.tool.description).not.toBe('New');
  });

  it('keeps the entries of a source that later replaces its tools under the new overrides', async () => {
    const { ToolOverrides } = await import('./tool-overrides.js');
    const catalog = new Catalog();
    catalog.setOverrides(new ToolOverrides({ a: { tags: ['demo'] } }));
    catalog.replaceSource('a', [makeEntry(makeTool('a:one'))]);
    expect(catalog.get('a:one')?.tool.tags).toContain('demo');
    catalog.remove('a');
    catalog.setOverrides(new ToolOverrides({}));
    expect(catalog.size).toBe(0);
  });
});

describe('Catalog.touch', () => {
  it('moves the version and sends listeners an empty batch, though no tool changed', () => {
    const catalog = new Catalog();
    catalog.replaceSource('s', [makeEntry(makeTool('s:a'))]);
    catalog.flush();
    const changes: CatalogChange[] = [];
    catalog.onChange((c) => changes.push(c));
    const version = catalog.version;
    catalog.touch();
    catalog.flush();
    expect(catalog.version).toBeGreaterThan(version);
    expect(changes).toEqual([{ version: catalog.version, added: [], removed: [], updated: [] }]);
  });
});
