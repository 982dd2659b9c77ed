import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedGateway } from '../support/in-process-gateway.js';

/**
 * `search_tools`' `prefer` through the MCP surface: three tools that match a query alike (same
 * words), with cost and latency set by overrides; `prefer` reorders them, a clearly better match
 * stays first, and without `prefer` the order is the ranking's.
 */
const TOOLS = `
const tool = (name, extra = '') => ({
  namespace: 'geo',
  name,
  description: 'Look up the weather forecast for a city' + extra,
  inputSchema: { type: 'object', properties: {} },
  handler: () => ({}),
});
export const a = tool('forecast_a');
export const b = tool('forecast_b');
export const c = tool('forecast_c');
export const d = {
  namespace: 'other',
  name: 'weather_forecast_city',
  description: 'Weather forecast for a city: weather forecast by city',
  inputSchema: { type: 'object', properties: {} },
  handler: () => ({}),
};
`;

describe('search_tools prefer', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-prefer-'));
    await writeFile(path.join(dir, 'tools.mjs'), TOOLS);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('orders equally relevant tools by cost or latency when asked, and only then', async () => {
    await using served = await servedGateway({
      tools: { builtin: false, modules: [path.join(dir, 'tools.mjs')] },
      exposure: 'metatools',
      overrides: {
        'geo:forecast_a': { metadata: { cost: 5, latencyMs: 10 } },
        'geo:forecast_b': { metadata: { cost: 1, latencyMs: 500 } },
        'geo:forecast_c': { metadata: { cost: 3 } },
      },
    });
    const search = async (prefer?: 'cheap' | 'fast') => {
      const result = await served.client.callTool({
        name: 'search_tools',
        arguments: { query: 'look up the weather forecast for a city', ...(prefer ? { prefer } : {}) },
      });
      const page = result.structuredContent as { tools: { id: string }[] };
      return page.tools.map((t) => t.id).filter((id) => id.startsWith('geo:'));
    };
    const plain = await search();
    expect(plain).toHaveLength(3);
    expect(await search('cheap')).toEqual(['geo:forecast_b', 'geo:forecast_c', 'geo:forecast_a']);
    // No latency for forecast_c: after those that declare one.
    expect(await search('fast')).toEqual(['geo:forecast_a', 'geo:forecast_b', 'geo:forecast_c']);
    const refused = await served.client.callTool({
      name: 'search_tools',
      arguments: { query: 'weather', prefer: 'free' },
    });
    expect(refused.isError).toBe(true);
  });
});
