import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { defineTool } from '../../src/sources/local/define-tool.js';
import { localEntries } from '../../src/sources/local/local-source.js';
import { servedGateway } from '../support/in-process-gateway.js';

describe('catalog changes reach connected clients', () => {
  it('sends one debounced tools/list_changed for a burst of changes, and the new tools are served', async () => {
    await using served = await servedGateway({ exposure: 'flat' });
    const { gateway, client } = served;
    {
      const before = (await client.listTools()).tools.map((t) => t.name);
      expect(before).not.toContain('late__hello');

      let notifications = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        notifications++;
      });
      const defs = ['hello', 'world', 'again'].map((name) =>
        defineTool({
          namespace: 'late',
          name,
          description: `Says ${name}`,
          inputSchema: { type: 'object' },
          handler: () => name,
        }),
      );
      for (const def of defs) gateway.catalog.upsert('late', localEntries('late', 'local', [def])[0]!);

      for (let i = 0; i < 40 && notifications === 0; i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 100));
      expect(notifications).toBe(1);

      const after = (await client.listTools()).tools.map((t) => t.name);
      expect(after).toEqual(expect.arrayContaining(['late__hello', 'late__world', 'late__again']));
      const result = await client.callTool({ name: 'late__world', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'world' }]);

      gateway.catalog.remove('late', 'late:world');
      for (let i = 0; i < 40 && notifications === 1; i++) await new Promise((r) => setTimeout(r, 25));
      expect(notifications).toBe(2);
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('late__world');
    }
  });

  it('exposes only the metatools in metatools mode and hides the tools in auto mode over budget', async () => {
    for (const [exposure, expectDirect] of [
      [{ mode: 'metatools' }, false],
      [{ mode: 'auto', budgetTokens: 10 }, false],
      [{ mode: 'auto', budgetTokens: 100000 }, true],
    ] as const) {
      await using served = await servedGateway({ exposure });
      const { client } = served;
      {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain('search_tools');
        expect(names.includes('time__now'), JSON.stringify(exposure)).toBe(expectDirect);
        if (!expectDirect) {
          const error = await client.callTool({ name: 'time__now', arguments: {} }).catch((e: Error) => e);
          expect(error).toBeInstanceOf(Error);
        }
      }
    }
  });
});
