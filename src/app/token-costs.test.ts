import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { ToolScope } from '../composition/tool-scope.js';
import { ToolSearch } from '../discovery/tool-search.js';
import { RunPipeline } from '../execution/run-pipeline.js';
import { loadTokenCounter } from '../foundation/ports/token-counter.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { Exposure } from '../surfaces/mcp/exposure.js';
import { FlatNaming } from '../surfaces/mcp/flat-naming.js';
import { METATOOLS } from '../surfaces/mcp/metatools.js';
import { tokenCosts } from './token-costs.js';

function scopeOf(count: number): ToolScope {
  const catalog = new Catalog();
  catalog.replaceSource(
    's',
    Array.from({ length: count }, (_, i) =>
      makeEntry(makeTool(`ns:tool_${i}`, { description: `Does thing number ${i} with care and detail.` })),
    ),
  );
  catalog.flush();
  const pipeline = new RunPipeline({ catalog, validator: new SchemaValidator() });
  return new ToolScope({ catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 });
}

const parts = {
  code: false,
  toolsets: false,
  skills: false,
  naming: new FlatNaming(),
  exposure: {},
  encoding: 'o200k_base',
};

describe('tokenCosts', () => {
  it('gives what exposure auto weighs, for the metatools a session would serve', async () => {
    const counter = await loadTokenCounter('o200k_base');
    const scope = scopeOf(40);
    const costs = tokenCosts(scope, { ...parts, counter });
    const served = METATOOLS.filter((m) => m.requires === undefined);
    expect(costs).toEqual({
      ...new Exposure(scope, served, { mode: 'auto', counter }).autoCosts(),
      tools: 40,
      counter: 'o200k_base',
    });
    // Code mode adds execute_code and code_api to what an agent reads through the metatools.
    expect(tokenCosts(scope, { ...parts, counter, code: true }).metatools).toBeGreaterThan(costs.metatools);
  });

  it('grows flat with the catalog, and says when it only estimates', () => {
    const small = tokenCosts(scopeOf(5), { ...parts, counter: undefined });
    const large = tokenCosts(scopeOf(200), { ...parts, counter: undefined });
    expect(large.flat).toBeGreaterThan(small.flat * 20);
    expect(small.counter).toBe('estimate');
  });

  it('counts pinned tools on the metatools side, as exposure auto does', async () => {
    const counter = await loadTokenCounter('o200k_base');
    const scope = scopeOf(40);
    const plain = tokenCosts(scope, { ...parts, counter });
    const first = scope.tools()[0]?.id ?? '';
    const pinned = tokenCosts(scope, { ...parts, counter, exposure: { pinned: [first] } });
    expect(pinned.flat).toBe(plain.flat);
    expect(pinned.metatools).toBeGreaterThan(plain.metatools);
  });
});
