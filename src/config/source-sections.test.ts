import { describe, expect, it } from 'vitest';
import { SOURCE_SECTION_NAMES } from '../sources/source-drivers.js';
import { diffConfig } from './config-diff.js';
import { configSchema, DEFAULT_CONFIG } from './config-schema.js';

describe('source sections', () => {
  it('every configured driver has its section in the parsed config, and only its section', () => {
    for (const name of SOURCE_SECTION_NAMES) expect(DEFAULT_CONFIG, name).toHaveProperty(name);
    // `mcpServers` is a field the MCP driver reads, joined into `servers`: it is gone once parsed.
    const config = configSchema.parse({ mcpServers: { a: { command: 'node' } } });
    expect(Object.keys(config.servers)).toEqual(['a']);
    expect(config).not.toHaveProperty('mcpServers');
  });

  it('keeps the parsed key order: single-field sections in place, joined ones after the rest', () => {
    const keys = Object.keys(DEFAULT_CONFIG);
    expect(keys.indexOf('openapi')).toBe(keys.indexOf('tools') + 1);
    expect(keys.at(-1)).toBe('servers');
  });

  it('the reload diff breaks down every source section by its entries’ keys', () => {
    const before = configSchema.parse({});
    const after = configSchema.parse({
      servers: { s: { command: 'node' } },
      openapi: [{ spec: './petstore.yaml', namespace: 'pets' }],
      agents: { helper: { url: 'https://agent.example' } },
      endpoints: { get_item: { url: 'https://api.example/items/{id}' } },
      sql: { find: { connection: 'sqlite:data.db', query: 'select 1' } },
      commands: { wc: { command: 'wc' } },
    });
    const diff = diffConfig(before, after);
    for (const name of SOURCE_SECTION_NAMES) expect(diff[name].added, name).toHaveLength(1);
    expect([diff.servers.added, diff.openapi.added, diff.agents.added]).toEqual([
      ['s'],
      ['pets'],
      ['helper'],
    ]);
  });
});
