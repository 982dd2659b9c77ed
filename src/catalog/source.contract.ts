import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { silentLogger } from '../foundation/ports/logger.js';
import { attachSource } from './attach-source.js';
import { Catalog } from './catalog.js';
import type { CatalogEntry } from './catalog-entry.js';
import type { Source } from './source.js';

/** A source ready to start, and the tool ids it publishes once started. */
export interface SourceUnderTest {
  source: Source;
  ids: readonly string[];
}

/** Starts `source`, keeping every list of ids it publishes; `refuse` ids are answered as refused. */
async function started(source: Source, refuse: readonly string[] = []): Promise<string[][]> {
  const published: string[][] = [];
  await source.start((entries: readonly CatalogEntry[]) => {
    const ids = entries.map((entry) => entry.tool.id);
    published.push(ids);
    return ids.filter((id) => refuse.includes(id));
  });
  return published;
}

/**
 * The behaviour every {@link Source} must have. Call it from a `*.test.ts` file with a factory
 * returning a fresh source, not started, that publishes at least two tools.
 */
export function runSourceContract(name: string, factory: () => Promise<SourceUnderTest>): void {
  describe(`Source contract: ${name}`, () => {
    it('is connecting with no tools before start', async () => {
      const { source } = await factory();
      expect(source.state()).toEqual({ state: 'connecting', tools: 0 });
      await source.stop();
    });

    it('has published its tools when start settles, and reports them as connected', async () => {
      const { source, ids } = await factory();
      expect(ids.length).toBeGreaterThanOrEqual(2);
      const published = await started(source);
      expect([...(published.at(-1) ?? [])].sort()).toEqual([...ids].sort());
      expect(source.state()).toMatchObject({ state: 'connected', tools: ids.length });
      await source.stop();
    });

    it('counts only the tools the catalog accepted', async () => {
      const { source, ids } = await factory();
      await started(source, [ids[0] as string]);
      expect(source.state()).toMatchObject({ state: 'connected', tools: ids.length - 1 });
      await source.stop();
    });

    it('lands in a catalog under its own id through attachSource; an id taken first stays taken', async () => {
      const { source, ids } = await factory();
      const catalog = new Catalog();
      const taken = ids[0] as string;
      const other = makeEntry(makeTool(taken));
      catalog.replaceSource('other', [other]);
      const warnings: unknown[] = [];
      const log = { ...silentLogger, warn: (obj: object) => void warnings.push(obj) };
      await attachSource(catalog, source, log);
      expect(catalog.get(taken)).toBe(other);
      for (const id of ids.slice(1)) expect(catalog.get(id)).toBeDefined();
      expect(warnings).toEqual([{ source: source.id, refused: [taken] }]);
      expect(source.state().tools).toBe(ids.length - 1);
      // Everything else is registered under the source's id: removing that source removes it all.
      catalog.remove(source.id);
      expect(catalog.size).toBe(1);
      await source.stop();
    });
  });
}
