import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { silentLogger } from '../foundation/logger.js';
import type { ExecutionContext } from '../foundation/tool-backend.js';
import { Catalog } from './catalog.js';
import { ToolOverrides } from './tool-overrides.js';

const ctx: ExecutionContext = {
  signal: new AbortController().signal,
  callId: 'c',
  caller: { identity: 't' },
  progress: () => {},
  log: silentLogger,
};

const schema = {
  type: 'object',
  properties: { path: { type: 'string' }, mode: { type: 'string' }, depth: { type: 'integer' } },
  required: ['path', 'mode'],
};

/** An entry whose backend records the tool name and arguments it was called with. */
function recording(id = 'fs:read') {
  const calls: { name: string; args: Record<string, unknown> }[] = [];
  const entry = makeEntry(makeTool(id, { inputSchema: schema, tags: ['io'] }), async (tool, args) => {
    calls.push({ name: tool.name, args });
    return { ok: true };
  });
  return { entry, calls };
}

describe('ToolOverrides rules', () => {
  it('returns the entry untouched when no rule matches', () => {
    const { entry } = recording();
    expect(new ToolOverrides({ other: { title: 'x' } }).apply(entry)).toBe(entry);
  });

  it('renames: a new id for callers, the original tool for the backend', async () => {
    const { entry, calls } = recording();
    const out = new ToolOverrides({ 'fs:read': { name: 'cat' } }).apply(entry);
    expect(out?.tool.id).toBe('fs:cat');
    expect(out?.tool.name).toBe('cat');
    expect(out?.tool.origin.originalName).toBe('read');
    await out?.backend.execute(out.tool, { path: 'a', mode: 'r' }, ctx);
    expect(calls).toEqual([{ name: 'read', args: { path: 'a', mode: 'r' } }]);
  });

  it('sets title and description', () => {
    const out = new ToolOverrides({ 'fs:read': { title: 'Read', description: 'Reads a file' } }).apply(
      recording().entry,
    );
    expect(out?.tool).toMatchObject({ title: 'Read', description: 'Reads a file' });
  });

  it('hides a tool', () => {
    expect(new ToolOverrides({ 'fs:read': { hidden: true } }).apply(recording().entry)).toBeUndefined();
  });

  it('merges annotations over the tool’s own and adds normalised tags', () => {
    const { entry } = recording();
    const tool = { ...entry.tool, annotations: { readOnlyHint: true, openWorldHint: true } };
    const out = new ToolOverrides({
      'fs:read': { annotations: { openWorldHint: false }, tags: ['Files', 'io'] },
    }).apply({ ...entry, tool });
    expect(out?.tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(out?.tool.tags).toEqual(['io', 'files']);
  });

  it('fixed arguments leave the visible schema and are always sent, over what the caller gives', async () => {
    const { entry, calls } = recording();
    const out = new ToolOverrides({ 'fs:read': { args: { fixed: { mode: 'r' } } } }).apply(entry);
    const properties = out?.tool.inputSchema.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['path', 'depth']);
    expect(out?.tool.inputSchema.required).toEqual(['path']);
    await out?.backend.execute(out.tool, { path: 'a', mode: 'w' }, ctx);
    expect(calls[0]?.args).toEqual({ path: 'a', mode: 'r' });
  });

  it('defaults fill absent arguments only, and stop being required of the caller', async () => {
    const { entry, calls } = recording();
    const out = new ToolOverrides({ 'fs:read': { args: { defaults: { mode: 'r', depth: 2 } } } }).apply(
      entry,
    );
    expect(out?.tool.inputSchema.required).toEqual(['path']);
    const properties = out?.tool.inputSchema.properties as Record<string, { default?: unknown }>;
    expect(properties.depth?.default).toBe(2);
    await out?.backend.execute(out.tool, { path: 'a' }, ctx);
    await out?.backend.execute(out.tool, { path: 'b', mode: 'w', depth: 0 }, ctx);
    expect(calls.map((c) => c.args)).toEqual([
      { mode: 'r', depth: 2, path: 'a' },
      { mode: 'w', depth: 0, path: 'b' },
    ]);
  });

  it('a per-tool timeout lands where the pipeline reads it', () => {
    const out = new ToolOverrides({ 'fs:read': { timeoutMs: 1234 } }).apply(recording().entry);
    expect(out?.tool.metadata.extra?.timeoutMs).toBe(1234);
  });

  it('a cache flag lands where the result cache reads it, beside a timeout, the more specific rule winning', () => {
    const out = new ToolOverrides({
      fs: { cache: true },
      'fs:read': { cache: false, timeoutMs: 50 },
    }).apply(recording().entry);
    expect(out?.tool.metadata.extra).toMatchObject({ cache: false, timeoutMs: 50 });
    const namespaceOnly = new ToolOverrides({ fs: { cache: true } }).apply(recording().entry);
    expect(namespaceOnly?.tool.metadata.extra?.cache).toBe(true);
  });
});

describe('ToolOverrides precedence: "ns:tool" > "ns" > "*"', () => {
  const overrides = new ToolOverrides({
    '*': { description: 'star', tags: ['all'], annotations: { readOnlyHint: true, openWorldHint: true } },
    fs: {
      description: 'namespace',
      tags: ['fs'],
      annotations: { openWorldHint: false },
      args: { fixed: { mode: 'r' } },
    },
    'fs:read': { description: 'tool', args: { fixed: { mode: 'rb' }, defaults: { depth: 1 } } },
  });

  it('the most specific key wins field by field; maps merge; tags accumulate', async () => {
    const { entry, calls } = recording();
    const out = overrides.apply(entry);
    expect(out?.tool.description).toBe('tool');
    expect(out?.tool.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    expect(out?.tool.tags).toEqual(['io', 'all', 'fs']);
    await out?.backend.execute(out.tool, { path: 'x' }, ctx);
    expect(calls[0]?.args).toEqual({ depth: 1, path: 'x', mode: 'rb' });
  });

  it('a namespace rule applies to every tool of that namespace and no other', () => {
    expect(overrides.apply(recording('fs:write').entry)?.tool.description).toBe('namespace');
    expect(overrides.apply(recording('web:get').entry)?.tool.description).toBe('star');
  });

  it('keys are scoped: "fs:read" does not touch a tool "read" of another namespace', () => {
    const scoped = new ToolOverrides({ 'fs:read': { hidden: true } });
    expect(scoped.apply(recording('other:read').entry)).toBeDefined();
    expect(scoped.apply(recording('fs:read').entry)).toBeUndefined();
  });

  it('a specific rule can un-hide what a broader rule hides', () => {
    const rules = new ToolOverrides({ fs: { hidden: true }, 'fs:read': { hidden: false } });
    expect(rules.apply(recording('fs:read').entry)).toBeDefined();
    expect(rules.apply(recording('fs:write').entry)).toBeUndefined();
  });

  it('a version key applies only to that version', () => {
    const rules = new ToolOverrides({ 'fs:read:2': { title: 'v2' } });
    const v2 = makeEntry(makeTool('fs:read:2', { name: 'read', version: '2' }));
    const v1 = makeEntry(makeTool('fs:read:1', { name: 'read', version: '1' }));
    expect(rules.apply(v2)?.tool.title).toBe('v2');
    expect(rules.apply(v1)?.tool.title).toBeUndefined();
  });
});

describe('Catalog with overrides', () => {
  it('applies them on every replace, so a re-listing is overridden again, and unchanged entries are no change', () => {
    const catalog = new Catalog({
      overrides: new ToolOverrides({ 'fs:read': { name: 'cat' }, 'fs:secret': { hidden: true } }),
    });
    const read = recording('fs:read').entry;
    const secret = makeEntry(makeTool('fs:secret'));
    catalog.replaceSource('fs', [read, secret]);
    expect(catalog.tools().map((t) => t.id)).toEqual(['fs:cat']);
    expect(catalog.get('fs:secret')).toBeUndefined();
    expect(catalog.get('fs:read')).toBeUndefined();
    const version = catalog.version;
    catalog.replaceSource('fs', [read, secret]);
    expect(catalog.version).toBe(version);
    const relisted = recording('fs:read').entry;
    catalog.replaceSource('fs', [relisted]);
    expect(catalog.tools().map((t) => t.id)).toEqual(['fs:cat']);
    expect(catalog.version).toBeGreaterThan(version);
  });
});
