import { describe, expect, it } from 'vitest';
import type { ToolsetView } from '../../composition/toolsets/toolset-registry.js';
import type { MetatoolContext } from './metatool.js';
import { METATOOLS } from './metatools.js';
import { TOOLSET_METATOOLS } from './toolset-metatools.js';

const [listToolsets, describeToolset] = TOOLSET_METATOOLS;

const view: ToolsetView = {
  list: () => [{ name: 'time', toolCount: 2, endpoint: '/mcp/time' }],
  describe: (name, page) => ({
    toolset: { name, toolCount: 2, endpoint: `/mcp/${name}`, definition: { namespaces: ['time'] } },
    tools: [],
    ...(page?.cursor ? {} : { nextCursor: `after-${page?.limit}` }),
  }),
};

const ctx = (toolsets?: ToolsetView) =>
  ({
    scope: {} as MetatoolContext['scope'],
    call: { caller: { identity: 't' } },
    ...(toolsets ? { toolsets } : {}),
  }) as MetatoolContext;

describe('toolset metatools', () => {
  it('are registered with the other metatools and served only when toolsets exist', () => {
    expect(METATOOLS.map((m) => m.name)).toEqual(
      expect.arrayContaining(['list_toolsets', 'describe_toolset']),
    );
    expect(TOOLSET_METATOOLS.every((m) => m.requires === 'toolsets')).toBe(true);
    expect(describeToolset?.inputSchema.required).toEqual(['toolset_id']);
  });

  it('list_toolsets answers from the caller view', async () => {
    await expect(listToolsets?.handler({}, ctx(view))).resolves.toEqual({ toolsets: view.list() });
  });

  it('describe_toolset passes the name and the page', async () => {
    await expect(
      describeToolset?.handler({ toolset_id: 'time', limit: 5 }, ctx(view)),
    ).resolves.toMatchObject({
      toolset: { name: 'time' },
      nextCursor: 'after-5',
    });
  });

  it("without a view (a wiring fault) fails as internal, never as the caller's fault", async () => {
    await expect(listToolsets?.handler({}, ctx())).rejects.toMatchObject({ code: 'internal' });
  });
});
