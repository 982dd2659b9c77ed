import { describe, expect, it } from 'vitest';
import { failureOf } from '../../../test/support/expect-failure.js';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import type { ToolsetDefinition } from './toolset-definition.js';
import { ToolsetRegistry } from './toolset-registry.js';

const DEFINITIONS: ToolsetDefinition[] = [
  { name: 'time', description: 'Clocks', namespaces: ['time'] },
  { name: 'docs', tags: ['docs'] },
  { name: 'empty', tools: ['nothing:*'] },
];

function setup(definitions = DEFINITIONS) {
  const catalog = new Catalog();
  catalog.replaceSource('s', [
    makeEntry(makeTool('time:now', { tags: ['clock'] }), async () => ({ at: 'noon' })),
    makeEntry(makeTool('time:convert')),
    makeEntry(makeTool('wiki:read', { tags: ['docs'] })),
    makeEntry(makeTool('admin:wipe')),
  ]);
  catalog.flush();
  let registry: ToolsetRegistry | undefined;
  const pipeline = new RunPipeline({
    catalog,
    validator: new SchemaValidator(),
    authorizer: { authorize: (tool, caller) => registry?.authorize(tool, caller) },
  });
  const deps = { catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 };
  registry = new ToolsetRegistry(deps, definitions);
  return { catalog, registry, pipeline };
}

const ids = (tools: { id: string }[]) => tools.map((t) => t.id);
const caller = (toolsets?: string[]): CallerContext => ({
  identity: 'alice',
  ...(toolsets ? { toolsets } : {}),
});

describe('ToolsetRegistry', () => {
  it('gives an unconfined caller the whole catalog and a confined one the union of its toolsets', () => {
    const { registry } = setup();
    expect(ids(registry.resolve({ caller: caller() }).tools())).toEqual([
      'admin:wipe',
      'time:convert',
      'time:now',
      'wiki:read',
    ]);
    expect(ids(registry.resolve({ caller: caller(['time']) }).tools())).toEqual(['time:convert', 'time:now']);
    expect(ids(registry.resolve({ caller: caller(['docs', 'time']) }).tools())).toEqual([
      'time:convert',
      'time:now',
      'wiki:read',
    ]);
    // The same grants in another order reuse one scope.
    expect(registry.resolve({ caller: caller(['time', 'docs']) })).toBe(
      registry.resolve({ caller: caller(['docs', 'time']) }),
    );
  });

  it('confines a caller whose grants name no known toolset to nothing, never to everything', () => {
    const { registry } = setup();
    expect(registry.resolve({ caller: caller(['gone']) }).tools()).toEqual([]);
    expect(registry.resolve({ caller: caller([]) }).tools()).toEqual([]);
  });

  it('narrows to a requested toolset: not_found when unknown, forbidden when not granted', () => {
    const { registry } = setup();
    expect(ids(registry.resolve({ caller: caller(), toolset: 'docs' }).tools())).toEqual(['wiki:read']);
    expect(ids(registry.resolve({ caller: caller(['time', 'docs']), toolset: 'docs' }).tools())).toEqual([
      'wiki:read',
    ]);
    const unknown = failureOf(() => registry.resolve({ caller: caller(), toolset: 'nope' }));
    expect(unknown.code).toBe('not_found');
    expect(unknown.message).toContain('"nope"');
    const denied = failureOf(() => registry.resolve({ caller: caller(['time']), toolset: 'docs' }));
    expect(denied.code).toBe('forbidden');
    expect(denied.message).toBe('"alice" is not granted toolset "docs"');
  });

  it('follows catalog changes: a new tool matching the definition joins, a removed one leaves', () => {
    const { registry, catalog } = setup();
    const scope = registry.scope('docs');
    expect(ids(scope.tools())).toEqual(['wiki:read']);
    catalog.upsert('s2', makeEntry(makeTool('blog:post', { tags: ['docs'] })));
    catalog.remove('s');
    expect(ids(scope.tools())).toEqual(['blog:post']);
  });

  it('hides outside tools from get, search and run (tool_not_found)', async () => {
    const { registry } = setup();
    const scope = registry.resolve({ caller: caller(['time']) });
    expect(failureOf(() => scope.get('admin:wipe')).code).toBe('tool_not_found');
    expect(ids((await scope.search({ query: 'wipe' })).tools)).toEqual([]);
    await expect(scope.run('admin:wipe', {}, { caller: caller(['time']) })).rejects.toMatchObject({
      code: 'tool_not_found',
    });
    await expect(scope.run('time:now', {}, { caller: caller(['time']) })).resolves.toMatchObject({
      structuredContent: { at: 'noon' },
    });
  });

  it('authorize: the pipeline refuses a confined caller a tool outside its toolsets, even through the base scope', async () => {
    const { registry, pipeline } = setup();
    // The base scope sees everything; the caller's grants still confine it in the pipeline.
    await expect(registry.base.run('admin:wipe', {}, { caller: caller(['time']) })).rejects.toMatchObject({
      code: 'tool_not_found',
      toolId: 'admin:wipe',
    });
    await expect(
      pipeline.run({ toolId: 'wiki:read', args: {}, caller: { identity: 'bob', toolset: 'time' } }),
    ).rejects.toMatchObject({ code: 'tool_not_found' });
    await expect(pipeline.run({ toolId: 'wiki:read', args: {}, caller: caller() })).resolves.toBeDefined();
  });

  it('refuses duplicate toolset names with config_invalid', () => {
    expect(() => setup([{ name: 'a' }, { name: 'a' }])).toThrow(/duplicate toolset name "a"/);
  });

  it('viewFor: lists the toolsets a caller may use and describes one with a page of members', () => {
    const { registry } = setup();
    expect(registry.viewFor(caller()).list()).toEqual([
      { name: 'time', description: 'Clocks', toolCount: 2, endpoint: '/mcp/time' },
      { name: 'docs', toolCount: 1, endpoint: '/mcp/docs' },
      { name: 'empty', toolCount: 0, endpoint: '/mcp/empty' },
    ]);
    const confined = registry.viewFor(caller(['docs']));
    expect(confined.list().map((t) => t.name)).toEqual(['docs']);
    const first = registry.viewFor(caller()).describe('time', { limit: 1 });
    expect(first.toolset).toEqual({
      name: 'time',
      description: 'Clocks',
      toolCount: 2,
      endpoint: '/mcp/time',
      definition: { namespaces: ['time'] },
    });
    expect(ids(first.tools)).toEqual(['time:convert']);
    expect(first.nextCursor).toBeTypeOf('string');
    const second = registry.viewFor(caller()).describe('time', { limit: 1, cursor: first.nextCursor });
    expect(ids(second.tools)).toEqual(['time:now']);
    expect(second.nextCursor).toBeUndefined();
    expect(failureOf(() => confined.describe('time')).code).toBe('forbidden');
    expect(failureOf(() => confined.describe('nope')).code).toBe('not_found');
  });

  it('refuses a cursor of one toolset in another', () => {
    const { registry } = setup([
      { name: 'a', namespaces: ['time'] },
      { name: 'b', namespaces: ['time'] },
    ]);
    const page = registry.scope('a').list({ limit: 1 });
    expect(() => registry.scope('b').list({ limit: 1, cursor: page.nextCursor })).toThrow(GatewayError);
  });
});

describe('ToolsetRegistry.replace (a config reload)', () => {
  it('makes scopes handed out before follow the new definitions; a removed toolset shows nothing', async () => {
    const { registry } = setup();
    const timeScope = registry.resolve({ caller: caller(['time']), toolset: 'time' });
    const union = registry.resolve({ caller: caller(['time', 'docs']) });
    expect(ids(timeScope.tools())).toEqual(['time:convert', 'time:now']);

    registry.replace([
      { name: 'time', namespaces: ['wiki'] },
      { name: 'admin', namespaces: ['admin'] },
    ]);

    // The session's scope object is the same; what it shows is the new definition.
    expect(ids(timeScope.tools())).toEqual(['wiki:read']);
    // "docs" is gone: the union holds only what "time" holds now, never more.
    expect(ids(union.tools())).toEqual(['wiki:read']);
    expect(ids(registry.resolve({ caller: caller(['admin']) }).tools())).toEqual(['admin:wipe']);
    expect(failureOf(() => registry.resolve({ caller: caller(), toolset: 'docs' })).code).toBe('not_found');
    expect(registry.names).toEqual(['time', 'admin']);
    await expect(timeScope.run('time:now', {}, { caller: caller(['time']) })).rejects.toMatchObject({
      code: 'tool_not_found',
    });
  });

  it('refuses duplicate names without changing the toolsets in force', () => {
    const { registry } = setup();
    expect(() => registry.replace([{ name: 'a' }, { name: 'a' }])).toThrow(GatewayError);
    expect(registry.names).toEqual(['time', 'docs', 'empty']);
  });
});
