import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolScope } from '../../composition/tool-scope.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { Exposure } from './exposure.js';
import { METATOOLS } from './metatools.js';
import { ResourceNaming } from './resource-naming.js';

/** A catalog of two servers: `monitor` with an app tool and an app-only tool, `other` plain. */
function scope(): ToolScope {
  const catalog = new Catalog();
  const origin = (name: string) => ({ sourceId: 'monitor', kind: 'mcp', originalName: name });
  const appMeta = {
    ui: { resourceUri: 'ui://system-monitor/app.html' },
    'ui/resourceUri': 'ui://system-monitor/app.html',
  };
  catalog.replaceSource('monitor', [
    makeEntry(
      makeTool('monitor:get-system-info', {
        description: 'Returns system information.',
        meta: appMeta,
        ui: { resourceUri: 'ui://system-monitor/app.html' },
        origin: origin('get-system-info'),
      }),
    ),
    makeEntry(
      makeTool('monitor:poll-system-stats', {
        description: 'Returns system stats for polling. App-only.',
        meta: { ui: { visibility: ['app'] } },
        ui: { visibility: ['app'] },
        origin: origin('poll-system-stats'),
      }),
    ),
  ]);
  catalog.replaceSource('widgets', [
    makeEntry(
      makeTool('widgets:chart', {
        description: 'Draws a chart.',
        origin: { sourceId: 'widgets', kind: 'mcp', originalName: 'chart' },
      }),
      async () => ({
        content: [{ type: 'text', text: 'drawn' }],
        _meta: { ui: { resourceUri: 'ui://charts/view.html' } },
      }),
    ),
  ]);
  catalog.replaceSource('other', [
    makeEntry(makeTool('other:echo', { description: 'Echoes system stats.' })),
  ]);
  catalog.flush();
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  return new ToolScope({ catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 });
}

const naming = new ResourceNaming([
  { namespace: 'monitor', prefix: true, sourceId: 'monitor' },
  { namespace: 'widgets', prefix: true, sourceId: 'widgets' },
  { namespace: 'other', prefix: true, sourceId: 'other' },
]);

describe('exposure of MCP App tools', () => {
  it('lists an app tool with its ui:// resource named for the client, and hides an app-only tool', () => {
    const view = new Exposure(scope(), METATOOLS, { mode: 'flat' }, { resources: naming }).view();
    const names = view.tools.map((t) => t.name);
    expect(names).toContain('monitor__get-system-info');
    expect(names).not.toContain('monitor__poll-system-stats');
    // Hidden from the list, still callable by its flat name.
    expect(view.direct.get('monitor__poll-system-stats')).toBe('monitor:poll-system-stats');
    const app = view.tools.find((t) => t.name === 'monitor__get-system-info');
    expect(app?._meta).toEqual({
      ui: { resourceUri: 'ui://monitor/system-monitor/app.html' },
      'ui/resourceUri': 'ui://monitor/system-monitor/app.html',
    });
  });

  it('keeps the server’s URI without a resource naming, and hides app-only tools in auto too', () => {
    const plain = new Exposure(scope(), METATOOLS, { mode: 'flat' }).view();
    expect(plain.tools.find((t) => t.name === 'monitor__get-system-info')?._meta).toEqual({
      ui: { resourceUri: 'ui://system-monitor/app.html' },
      'ui/resourceUri': 'ui://system-monitor/app.html',
    });
    const auto = new Exposure(scope(), METATOOLS, { mode: 'auto', budgetTokens: 100_000 }).view();
    expect(auto.listing).toBe('flat');
    expect(auto.tools.map((t) => t.name)).not.toContain('monitor__poll-system-stats');
    expect(auto.direct.has('monitor__poll-system-stats')).toBe(true);
  });

  it('metatools exposure lists no tool flat, yet an app-only tool answers to its flat name', () => {
    const view = new Exposure(scope(), METATOOLS, { mode: 'metatools' }, { resources: naming }).view();
    expect(view.tools.map((t) => t.name)).not.toContain('monitor__poll-system-stats');
    expect([...view.direct]).toEqual([['monitor__poll-system-stats', 'monitor:poll-system-stats']]);
    const pinned = new Exposure(
      scope(),
      METATOOLS,
      { mode: 'auto', budgetTokens: 1, pinned: ['monitor:get-system-info'] },
      { resources: naming },
    ).view();
    expect(pinned.listing).toBe('metatools');
    const listed = pinned.tools.find((t) => t.name === 'monitor__get-system-info');
    expect(listed?._meta).toMatchObject({ ui: { resourceUri: 'ui://monitor/system-monitor/app.html' } });
    expect(pinned.direct.get('monitor__poll-system-stats')).toBe('monitor:poll-system-stats');
    expect(pinned.direct.get('monitor__get-system-info')).toBe('monitor:get-system-info');
  });

  it('leaves app-only tools out of search, list_tools and the namespace counts, not out of describe', async () => {
    const s = scope();
    const found = await s.search({ query: 'system stats' });
    expect(found.tools.map((t) => t.id)).toContain('other:echo');
    expect(found.tools.map((t) => t.id)).not.toContain('monitor:poll-system-stats');
    const all = await s.search({ query: '' });
    expect(all.tools.map((t) => t.id)).toEqual(['monitor:get-system-info', 'other:echo', 'widgets:chart']);
    expect(s.list().tools.map((t) => t.id)).toEqual([
      'monitor:get-system-info',
      'other:echo',
      'widgets:chart',
    ]);
    expect(s.namespaces()).toEqual([
      { namespace: 'monitor', tools: 1 },
      { namespace: 'other', tools: 1 },
      { namespace: 'widgets', tools: 1 },
    ]);
    expect(s.describe('monitor:poll-system-stats', 'summary').tool.app).toEqual({ visibility: ['app'] });
  });

  it('describe_tool names the app as the client reads it; without a naming, as the server does', async () => {
    const describe = METATOOLS.find((m) => m.name === 'describe_tool');
    const s = scope();
    const call = { caller: { id: 'anonymous' } } as never;
    const named = (await describe?.handler(
      { tool_id: 'monitor:get-system-info' },
      { scope: s, call, resources: naming },
    )) as {
      tool: { app: unknown; _meta: unknown };
    };
    expect(named.tool.app).toEqual({ resourceUri: 'ui://monitor/system-monitor/app.html' });
    expect(named.tool._meta).toMatchObject({ ui: { resourceUri: 'ui://monitor/system-monitor/app.html' } });
    const plain = (await describe?.handler(
      { tool_id: 'monitor:get-system-info', detail_level: 'summary' },
      { scope: s, call },
    )) as {
      tool: { app: unknown; _meta?: unknown };
    };
    expect(plain.tool.app).toEqual({ resourceUri: 'ui://system-monitor/app.html' });
    expect(plain.tool._meta).toBeUndefined();
  });

  it('run_tool keeps the UI link of a result, named as the client reads it', async () => {
    const run = METATOOLS.find((m) => m.name === 'run_tool');
    const s = scope();
    const call = { caller: { id: 'anonymous' } } as never;
    const named = (await run?.handler(
      { tool_id: 'widgets:chart', args: {} },
      { scope: s, call, resources: naming },
    )) as {
      passThrough: { _meta?: unknown; content: unknown[] };
    };
    expect(named.passThrough._meta).toEqual({ ui: { resourceUri: 'ui://widgets/charts/view.html' } });
    expect(named.passThrough.content).toEqual([{ type: 'text', text: 'drawn' }]);
    const plain = (await run?.handler({ tool_id: 'widgets:chart', args: {} }, { scope: s, call })) as {
      passThrough: { _meta?: unknown };
    };
    expect(plain.passThrough._meta).toEqual({ ui: { resourceUri: 'ui://charts/view.html' } });
  });
});
