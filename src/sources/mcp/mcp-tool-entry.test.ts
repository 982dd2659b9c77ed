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

describe('mcpToolEntry of an MCP App tool', () => {
  const context = {
    sourceId: 'monitor',
    namespace: 'monitor',
    backend: { execute: async () => ({ content: [] }) },
  };

  it('keeps _meta as it came and reads its app once (Tool.ui)', () => {
    const meta = {
      ui: { resourceUri: 'ui://system-monitor/mcp-app.html' },
      'ui/resourceUri': 'ui://system-monitor/mcp-app.html',
    };
    const { tool } = mcpToolEntry(
      { name: 'get-system-info', inputSchema: { type: 'object' }, _meta: meta },
      context,
    );
    expect(tool.meta).toBe(meta);
    expect(tool.ui).toEqual({ resourceUri: 'ui://system-monitor/mcp-app.html' });
    const appOnly = mcpToolEntry(
      { name: 'poll', inputSchema: { type: 'object' }, _meta: { ui: { visibility: ['app'] } } },
      context,
    ).tool;
    expect(appOnly.ui).toEqual({ visibility: ['app'] });
    const plain = mcpToolEntry(
      { name: 'echo', inputSchema: { type: 'object' }, _meta: { x: 1 } },
      context,
    ).tool;
    expect(plain.ui).toBeUndefined();
  });
});
