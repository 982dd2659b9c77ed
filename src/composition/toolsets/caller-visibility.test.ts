import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { type CallerVisibility, ToolsetRegistry } from './toolset-registry.js';

function setup(visibility?: CallerVisibility) {
  const catalog = new Catalog();
  catalog.replaceSource('s', [makeEntry(makeTool('time:now')), makeEntry(makeTool('vault:read'))]);
  catalog.flush();
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  const deps = { catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 };
  return new ToolsetRegistry(deps, [{ name: 'all', tools: ['*'] }], visibility ? { visibility } : {});
}

/** Hides `vault:*` from bob; nothing from anyone else. */
const hideVaultFromBob: CallerVisibility = {
  visibilityKey: (caller) => caller.identity,
  hides: (tool, caller) => caller.identity === 'bob' && tool.namespace === 'vault',
};
const bob: CallerContext = { identity: 'bob' };
const alice: CallerContext = { identity: 'alice' };
const ids = (tools: { id: string }[]) => tools.map((t) => t.id);

describe('ToolsetRegistry with caller visibility', () => {
  it('narrows the scope of a caller from whom tools are hidden: list, search, describe', async () => {
    const registry = setup(hideVaultFromBob);
    expect(ids(registry.resolve({ caller: alice }).tools())).toEqual(['time:now', 'vault:read']);
    const scope = registry.resolve({ caller: bob });
    expect(ids(scope.tools())).toEqual(['time:now']);
    expect(ids(scope.list().tools)).toEqual(['time:now']);
    expect(ids((await scope.search({ query: 'read' })).tools)).not.toContain('vault:read');
    expect(() => scope.describe('vault:read')).toThrow(expect.objectContaining({ code: 'tool_not_found' }));
    expect(ids(registry.resolve({ caller: bob, toolset: 'all' }).tools())).toEqual(['time:now']);
  });

  it('hands out one narrowed scope per kind of caller (per-scope caches keep hitting), rooted in the shared one', () => {
    const registry = setup(hideVaultFromBob);
    const first = registry.resolve({ caller: bob });
    expect(registry.resolve({ caller: { identity: 'bob' } })).toBe(first);
    expect(first.unnarrowed).toBe(registry.base);
    expect(first).not.toBe(registry.base);
  });

  it('hands out the shared scopes as they are when nothing can hide anything', () => {
    const registry = setup({ visibilityKey: () => undefined, hides: () => true });
    expect(registry.resolve({ caller: bob })).toBe(registry.base);
    const plain = setup();
    expect(plain.resolve({ caller: bob })).toBe(plain.base);
  });
});
