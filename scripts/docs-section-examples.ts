/**
 * An example of each config section the configuration reference shows, where the section has no
 * defaults worth showing (a section with defaults shows them instead). Each is printed as a YAML
 * block of docs/reference/config.md, and every YAML block there must pass `aperture config
 * validate` (test/docs/readme-config-blocks.test.ts): an example that stops being valid fails.
 * Descriptions of the keys are in the schema itself (`.describe()`); only examples live here.
 */
export const SECTION_EXAMPLES: Readonly<Record<string, unknown>> = {
  servers: {
    everything: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
    remote: { url: 'https://tools.example.com/mcp', timeoutMs: 30000 },
  },
  mcpServers: {
    files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/shared'] },
  },
  openapi: [
    {
      spec: 'https://petstore.example.com/v1/openapi.json',
      namespace: 'pets',
      include: ['get*', 'POST /pets'],
      timeoutMs: 30000,
    },
  ],
  agents: { research: { url: 'https://agents.example.com/research', timeoutMs: 60000 } },
  endpoints: {
    get_item: {
      description: 'Fetch one catalogue item by id.',
      url: 'https://api.example.com/items/{id}',
      timeoutMs: 5000,
    },
  },
  sql: {
    local_lookup: {
      description: 'One product by id.',
      connection: 'sqlite:data/shop.db',
      query: 'select id, name from products where id = :id',
    },
  },
  commands: {
    word_count: { description: 'Count the words of a text file.', command: 'wc', args: ['-w', '{file}'] },
  },
  overrides: {
    '*': { annotations: { openWorldHint: true } },
    'everything:echo': { name: 'say', description: 'Repeat a message', tags: ['demo'] },
  },
  toolsets: [{ name: 'time-only', description: 'Clocks', namespaces: ['time'] }],
  skills: [
    {
      name: 'utc_now',
      description: 'The current time in UTC.',
      steps: [{ id: 'now', tool: 'time:now', args: { timezone: 'UTC' } }],
    },
  ],
  rateLimits: [{ tool: 'time:*', perMinute: 60 }],
  registries: [{ url: 'https://registry.modelcontextprotocol.io', name: 'official' }],
  console: { enabled: true },
  a2a: { card: { documentationUrl: 'https://example.com/docs/agents' } },
};
