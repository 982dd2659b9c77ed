import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { silentLogger } from '../foundation/ports/logger.js';
import type { ExecutionContext } from '../foundation/ports/tool-backend.js';
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

describe('ToolOverrides: input schema patches (RFC 7396)', () => {
  it('a patch fixes a wrong property type, rewrites a description and adds an enum; the call goes through unchanged', async () => {
    const { entry, calls } = recording();
    const out = new ToolOverrides({
      'fs:read': {
        inputSchema: {
          properties: {
            depth: { type: 'string', enum: ['shallow', 'deep'] },
            path: { description: 'Absolute path' },
          },
        },
      },
    }).apply(entry);
    const properties = out?.tool.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.depth).toEqual({ type: 'string', enum: ['shallow', 'deep'] });
    expect(properties.path).toEqual({ type: 'string', description: 'Absolute path' });
    expect(out?.tool.inputSchema.required).toEqual(['path', 'mode']);
    // The downstream's own schema is not changed by the patch.
    expect(entry.tool.inputSchema).toBe(schema);
    await out?.backend.execute(out.tool, { path: '/a', mode: 'r', depth: 'deep' }, ctx);
    expect(calls).toEqual([{ name: 'read', args: { path: '/a', mode: 'r', depth: 'deep' } }]);
  });

  it('a dropped property leaves the visible schema and is never sent, even when a caller passes it', async () => {
    const { entry, calls } = recording();
    const out = new ToolOverrides({ 'fs:read': { inputSchema: { properties: { depth: null } } } }).apply(
      entry,
    );
    expect(Object.keys(out?.tool.inputSchema.properties as object)).toEqual(['path', 'mode']);
    await out?.backend.execute(out.tool, { path: 'a', mode: 'r', depth: 9 }, ctx);
    expect(calls[0]?.args).toEqual({ path: 'a', mode: 'r' });
  });

  it('a pinned property (const) stops being required of the caller and is filled back in before the call', async () => {
    const { entry, calls } = recording();
    const out = new ToolOverrides({
      'fs:read': { inputSchema: { properties: { mode: { const: 'r' } } } },
    }).apply(entry);
    expect(out?.tool.inputSchema.required).toEqual(['path']);
    await out?.backend.execute(out.tool, { path: 'a' }, ctx);
    expect(calls[0]?.args).toEqual({ path: 'a', mode: 'r' });
  });

  it('a default the patch adds is filled in when the caller leaves the argument out, and is not required', async () => {
    const { entry, calls } = recording();
    const out = new ToolOverrides({
      'fs:read': { inputSchema: { properties: { mode: { default: 'rb' } } } },
    }).apply(entry);
    expect(out?.tool.inputSchema.required).toEqual(['path']);
    await out?.backend.execute(out.tool, { path: 'a' }, ctx);
    await out?.backend.execute(out.tool, { path: 'b', mode: 'w' }, ctx);
    expect(calls.map((c) => c.args)).toEqual([
      { path: 'a', mode: 'rb' },
      { path: 'b', mode: 'w' },
    ]);
  });

  it('patches of "*", "ns" and "ns:tool" apply in that order, so the most specific wins, also over a deletion', () => {
    const out = new ToolOverrides({
      '*': { inputSchema: { properties: { depth: null } } },
      fs: { inputSchema: { properties: { path: { description: 'ns' } } } },
      'fs:read': {
        inputSchema: { properties: { depth: { type: 'number' }, path: { description: 'tool' } } },
      },
    }).apply(recording().entry);
    const properties = out?.tool.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(properties.depth).toEqual({ type: 'number' });
    expect(properties.path).toEqual({ type: 'string', description: 'tool' });
  });

  it('fixed and default arguments apply to the patched schema', async () => {
    const { entry, calls } = recording();
    const out = new ToolOverrides({
      'fs:read': { inputSchema: { properties: { depth: null } }, args: { fixed: { mode: 'r' } } },
    }).apply(entry);
    expect(Object.keys(out?.tool.inputSchema.properties as object)).toEqual(['path']);
    await out?.backend.execute(out.tool, { path: 'a', depth: 3 }, ctx);
    expect(calls[0]?.args).toEqual({ path: 'a', mode: 'r' });
  });

  // Regression ("Hardening, round two"): a `__proto__` property in a patch replaced the prototype of
  // the patched `properties`, so the schema lost the property while the reload reported success.
  it('a patch naming a property __proto__ or constructor adds it as a property, touching no prototype', async () => {
    const { entry, calls } = recording();
    const patch = JSON.parse(
      '{"properties":{"__proto__":{"type":"string","default":"p"},"constructor":{"type":"number"}}}',
    );
    const out = new ToolOverrides({ 'fs:read': { inputSchema: patch } }).apply(entry);
    const properties = out?.tool.inputSchema.properties as Record<string, unknown>;
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
    expect(Object.keys(properties)).toEqual(['path', 'mode', 'depth', '__proto__', 'constructor']);
    expect(JSON.stringify(out?.tool.inputSchema)).toContain('"__proto__":{"type":"string","default":"p"}');
    await out?.backend.execute(out.tool, { path: 'a', mode: 'r' }, ctx);
    expect(Object.getOwnPropertyDescriptor(calls[0]?.args, '__proto__')?.value).toBe('p');
    expect(Object.getPrototypeOf(calls[0]?.args)).toBe(Object.prototype);
  });

  it('an output schema patch merges over the downstream one, or becomes the schema when there is none', () => {
    const withOutput = makeEntry(
      makeTool('fs:stat', { outputSchema: { type: 'object', properties: { size: { type: 'string' } } } }),
    );
    const rules = new ToolOverrides({
      fs: { outputSchema: { type: 'object', properties: { size: { type: 'integer' } } } },
    });
    expect(rules.apply(withOutput)?.tool.outputSchema).toEqual({
      type: 'object',
      properties: { size: { type: 'integer' } },
    });
    expect(rules.apply(recording().entry)?.tool.outputSchema).toEqual({
      type: 'object',
      properties: { size: { type: 'integer' } },
    });
  });

  it('an output schema patch without a type, on a tool without an output schema, still gives an object schema', () => {
    const out = new ToolOverrides({ fs: { outputSchema: { properties: { n: { type: 'number' } } } } }).apply(
      recording().entry,
    );
    expect(out?.tool.outputSchema).toEqual({ type: 'object', properties: { n: { type: 'number' } } });
  });
});

describe('ToolOverrides: examples and metadata', () => {
  it('examples replace the tool’s own, the most specific rule winning', () => {
    const tool = makeTool('fs:read', { examples: [{ title: 'own', args: {} }] });
    const out = new ToolOverrides({
      fs: { examples: [{ title: 'ns', args: { path: 'n' } }] },
      'fs:read': {
        examples: [{ title: 'Read the readme', args: { path: 'README.md' }, resultHint: 'text' }],
      },
    }).apply(makeEntry(tool));
    expect(out?.tool.examples).toEqual([
      { title: 'Read the readme', args: { path: 'README.md' }, resultHint: 'text' },
    ]);
  });

  it('metadata lands in the canonical fields search filters and describe read, merged key by key', () => {
    const tool = makeTool('fs:read', { metadata: { cost: 9, extra: { timeoutMs: 5 } } });
    const out = new ToolOverrides({
      fs: { metadata: { category: 'files', cost: 2, notes: 'ns notes' } },
      'fs:read': {
        metadata: { latencyMs: 40, sideEffects: false, notes: 'Reads only; large files are cut at 1 MB.' },
      },
    }).apply(makeEntry(tool));
    expect(out?.tool.metadata).toEqual({
      cost: 2,
      category: 'files',
      latencyHintMs: 40,
      sideEffect: false,
      extra: { timeoutMs: 5 },
    });
    expect(out?.tool.notes).toBe('Reads only; large files are cut at 1 MB.');
  });

  it('a rule with only metadata keeps the original backend (no wrapper)', () => {
    const { entry } = recording();
    const out = new ToolOverrides({ 'fs:read': { metadata: { category: 'files' } } }).apply(entry);
    expect(out?.backend).toBe(entry.backend);
  });
});
