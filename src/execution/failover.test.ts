import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import { Catalog } from '../catalog/catalog.js';
import { ToolOverrides } from '../catalog/tool-overrides.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { ANSWERED_BY_META_KEY, BackendHealth } from './failover.js';
import { RunPipeline } from './run-pipeline.js';

const schema = {
  type: 'object',
  properties: { q: { type: 'string' } },
  required: ['q'],
  additionalProperties: false,
};

function setup(primaryDown: { down: boolean }) {
  const calls: string[] = [];
  const catalog = new Catalog({
    overrides: new ToolOverrides({ 'local:find': { alternatives: ['remote:find', 'mcp:find'] } }),
  });
  catalog.replaceSource('local', [
    makeEntry(makeTool('local:find', { inputSchema: schema }), async (_t, a) => {
      calls.push('local');
      if (primaryDown.down) throw new GatewayError('backend_unavailable', 'local is down');
      return { from: 'local', q: a.q };
    }),
  ]);
  catalog.replaceSource('remote', [
    makeEntry(makeTool('remote:find', { inputSchema: schema }), async (_t, a) => {
      calls.push('remote');
      return { from: 'remote', q: a.q };
    }),
  ]);
  return { pipeline: new RunPipeline({ catalog, validator: new SchemaValidator() }), calls };
}

const caller = { identity: 't' };

describe('alternatives (failover)', () => {
  it('answers from the tool itself while it is up, naming it', async () => {
    const { pipeline } = setup({ down: false });
    const result = await pipeline.run({ caller, toolId: 'local:find', args: { q: 'x' } });
    expect(result.structuredContent).toEqual({ from: 'local', q: 'x' });
    expect(result._meta?.[ANSWERED_BY_META_KEY]).toBe('local:find');
  });

  it('fails over on backend_unavailable, skips a missing alternative, and passes the dead one over next time', async () => {
    const state = { down: true };
    const { pipeline, calls } = setup(state);
    const first = await pipeline.run({ caller, toolId: 'local:find', args: { q: 'x' } });
    expect(first.structuredContent).toEqual({ from: 'remote', q: 'x' });
    expect(first._meta?.[ANSWERED_BY_META_KEY]).toBe('remote:find');
    await pipeline.run({ caller, toolId: 'local:find', args: { q: 'y' } });
    expect(calls).toEqual(['local', 'remote', 'remote']);
  });

  it("never fails over on a caller's error", async () => {
    const { pipeline, calls } = setup({ down: true });
    await expect(pipeline.run({ caller, toolId: 'local:find', args: { q: 1 } })).rejects.toMatchObject({
      code: 'validation_input',
    });
    expect(calls).toEqual([]);
  });

  it('keeps a backend down for the cooldown only', () => {
    const health = new BackendHealth(1000);
    health.down('a', 0);
    expect(health.healthy('a', 500)).toBe(false);
    expect(health.healthy('a', 1500)).toBe(true);
  });
});
