import { describe, expect, it } from 'vitest';
import published from '../../../test/fixtures/mcp/metatool-schemas.json' with { type: 'json' };
import { SEARCH_INPUT_SCHEMA } from '../../composition/search-input-schema.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { connectorTools } from './connector-tools.js';
import type { MetatoolContext } from './metatool.js';
import { METATOOLS } from './metatools.js';

// The metatools' names, descriptions and input schemas are an outside interface: agents and
// outside tests rely on them. The fixture holds what `tools/list` publishes; a change to it is
// a deliberate interface change, never a side effect of how the schemas are written.
describe('published metatool schemas', () => {
  const served = [...METATOOLS, ...connectorTools(() => 'http://127.0.0.1')];

  it('publishes every metatool exactly as the fixture records it', () => {
    expect(served.map((m) => m.name)).toEqual(published.metatools.map((m) => m.name));
    for (const [i, m] of served.entries()) {
      const { name, title, description, inputSchema, annotations } = m;
      expect({ name, title, description, inputSchema, annotations }).toEqual(published.metatools[i]);
    }
  });

  it('validates POST /api/search bodies against the schema search_tools publishes', () => {
    expect(SEARCH_INPUT_SCHEMA).toEqual(published.searchInputSchema);
    expect(METATOOLS.find((m) => m.name === 'search_tools')?.inputSchema).toEqual(SEARCH_INPUT_SCHEMA);
  });
});

/** Arguments each metatool must refuse, naming the failing field. */
const INVALID: [string, Record<string, unknown>][] = [
  ['search_tools', {}],
  ['search_tools', { query: 1 }],
  ['search_tools', { query: 'x', limit: 0 }],
  ['search_tools', { query: 'x', limit: 101 }],
  ['search_tools', { query: 'x', tags: [1] }],
  ['search_tools', { query: 'x', max_cost: -1 }],
  ['search_tools', { query: 'x', allow_side_effects: 'no' }],
  ['search_tools', { query: 'x', extra: 1 }],
  ['list_tools', { limit: 1.5 }],
  ['list_tools', { cursor: 3 }],
  ['list_namespaces', { namespace: 'x' }],
  ['describe_tool', { tool_id: '' }],
  ['describe_tool', { tool_id: 'a:b', detail_level: 'all' }],
  ['describe_tool', { tool_id: 'a:b', examples_max: 21 }],
  ['describe_tool', { tool_id: 'a:b', format: 'xml' }],
  ['list_tool_examples', { tool_id: 'a:b', max: 0 }],
  ['run_tool', { args: {} }],
  ['run_tool', { tool_id: 'a:b', args: [] }],
  ['run_tool', { tool_id: 'a:b', args: 'x' }],
  ['run_chain', { steps: [] }],
  ['run_chain', { steps: [{}] }],
  ['run_chain', { steps: [{ tool_id: 'a:b', extra: 1 }] }],
  ['run_chain', { steps: [{ tool_id: 'a:b', use_previous: 'yes' }] }],
  ['execute_code', { code: '' }],
  ['execute_code', { code: 'return 1', language: 'python' }],
  ['execute_code', { code: 'return 1', timeout_ms: 0 }],
  ['execute_code', { code: 'return 1', memory_mb: 4 }],
  ['code_api', { namespace: 1 }],
  ['list_toolsets', { x: 1 }],
  ['describe_toolset', { toolset_id: '' }],
  ['describe_toolset', { toolset_id: 't', limit: 0 }],
  ['list_skills', { limit: 0 }],
  ['describe_skill', {}],
  ['plan_skill', { name: 's', inputs: 1 }],
  ['run_skill', { name: 's', extra: 1 }],
  ['search', {}],
  ['fetch', { id: 1 }],
];

/** Arguments each metatool must take. */
const VALID: [string, Record<string, unknown>][] = [
  ['search_tools', { query: 'x', limit: 100, tags: ['a'], max_cost: 0, allow_side_effects: false }],
  ['list_namespaces', {}],
  ['describe_tool', { tool_id: 'a:b', detail_level: 'full', examples_max: 0, format: 'typescript' }],
  ['run_tool', { tool_id: 'a:b', args: { anything: [1, { deep: true }] } }],
  ['run_chain', { steps: [{ tool_id: 'a:b', args: {}, use_previous: true }] }],
  ['execute_code', { code: 'return 1', language: 'typescript', timeout_ms: 1, memory_mb: 8 }],
  ['run_skill', { name: 's', inputs: { a: 1 } }],
  ['fetch', { id: 'a:b' }],
];

// The session server checks arguments against the published schema; the handler parses them with
// the definition that schema comes from. Both must draw the line in the same place.
describe('metatool arguments: the published schema and the handler agree', () => {
  const served = new Map([...METATOOLS, ...connectorTools(() => 'http://127.0.0.1')].map((m) => [m.name, m]));
  const validator = new SchemaValidator();
  // Any use of the context past the parse stops the handler: the arguments were taken.
  const taken = new Error('arguments taken');
  const ctx = new Proxy({} as MetatoolContext, {
    get: () => {
      throw taken;
    },
  });
  const handlerOutcome = async (name: string, args: Record<string, unknown>) => {
    const failure = await served
      .get(name)
      ?.handler(args, ctx)
      .then(
        () => taken,
        (error: unknown) => error,
      );
    if (failure === taken) return { valid: true as const };
    expect(failure).toBeInstanceOf(GatewayError);
    expect((failure as GatewayError).code).toBe('validation_input');
    expect((failure as GatewayError).message).toMatch(new RegExp(`^Invalid arguments for ${name}: /`));
    const issues = ((failure as GatewayError).details as { issues: { path: string }[] }).issues;
    return { valid: false as const, paths: [...new Set(issues.map((i) => i.path))].sort() };
  };

  it.each(INVALID)('%s refuses %j, naming the same fields', async (name, args) => {
    const tool = served.get(name);
    if (!tool) throw new Error(`no metatool ${name}`);
    const published = validator.validate(tool.inputSchema, args);
    if (published.valid) throw new Error('the published schema takes it');
    const paths = [...new Set(published.issues.map((i) => i.path))].sort();
    expect(await handlerOutcome(name, args)).toEqual({ valid: false, paths });
  });

  it.each(VALID)('%s takes %j', async (name, args) => {
    const tool = served.get(name);
    if (!tool) throw new Error(`no metatool ${name}`);
    expect(validator.validate(tool.inputSchema, args)).toEqual({ valid: true });
    expect(await handlerOutcome(name, args)).toEqual({ valid: true });
  });
});
