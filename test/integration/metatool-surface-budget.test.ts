import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/foundation/ports/token-counter.js';
import { METATOOL_SURFACE_BUDGET } from '../../src/surfaces/mcp/metatools.js';
import { servedGateway } from '../support/in-process-gateway.js';

/** The `tools/list` an MCP client gets from a gateway built from `raw`, and what it costs in tokens. */
async function surface(raw: Record<string, unknown>): Promise<{ names: string[]; tokens: number }> {
  await using served = await servedGateway(raw);
  const { tools } = await served.client.listTools();
  const counter = await loadTokenCounter('o200k_base');
  // The tools array as sent: what a client puts in the model's context on every turn.
  return { names: tools.map((t) => t.name), tokens: counter.count(JSON.stringify(tools)) };
}

// The metatools are the fixed cost of progressive disclosure, paid before the agent does anything;
// it must stay well under what listing a catalog flat costs. Counted with the tokenizer `auto` and
// `eval --tokens` use, on the list a real client receives.
describe('the always-loaded metatool surface', () => {
  it(`costs at most ${METATOOL_SURFACE_BUDGET} tokens with the default config (code mode on)`, async () => {
    const { names, tokens } = await surface({ exposure: 'metatools' });
    expect(names).toEqual(expect.arrayContaining(['search_tools', 'run_tool', 'execute_code', 'code_api']));
    expect(tokens).toBeLessThanOrEqual(METATOOL_SURFACE_BUDGET);
  });

  it(`costs at most ${METATOOL_SURFACE_BUDGET} tokens with code mode off`, async () => {
    const { names, tokens } = await surface({ exposure: 'metatools', codeMode: { enabled: false } });
    expect(names).toContain('search_tools');
    expect(names).not.toContain('execute_code');
    expect(tokens).toBeLessThanOrEqual(METATOOL_SURFACE_BUDGET);
  });
});
