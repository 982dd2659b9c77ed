import { describe, expect, it } from 'vitest';
import { mcpToolEntry } from './mcp-tool-entry.js';

const backend = { execute: async () => ({ content: [] }) };

describe('mcpToolEntry', () => {
  it('keeps the downstream tool’s _meta as it came (it was dropped on import)', () => {
    const meta = { 'com.example/ui': { resourceUri: 'ui://widget/chart.html' }, version: 3 };
    const entry = mcpToolEntry(
      { name: 'chart', inputSchema: { type: 'object' }, _meta: meta },
      { sourceId: 'viz', namespace: 'viz', backend },
    );
    expect(entry.tool.meta).toEqual(meta);
  });

  it('leaves meta out when the tool has none', () => {
    const entry = mcpToolEntry(
      { name: 'plain', inputSchema: { type: 'object' } },
      { sourceId: 's', namespace: 's', backend },
    );
    expect('meta' in entry.tool).toBe(false);
  });
});
