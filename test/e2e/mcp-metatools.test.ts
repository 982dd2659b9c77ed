import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttp,
  connectSse,
  connectStdio,
  type DisposableClient,
  FIXTURE_CONFIG,
  type RunningGateway,
  startHttpGateway,
  structured,
} from './gateway-process.js';

/** The same scenarios over every MCP transport: they must not disagree. */
describe.each(['stdio', 'streamable-http', 'sse'] as const)('MCP metatools over %s', (transport) => {
  let gateway: RunningGateway | undefined;
  let client: DisposableClient;

  beforeAll(async () => {
    if (transport === 'stdio') {
      client = await connectStdio();
      return;
    }
    gateway = await startHttpGateway(['--config', FIXTURE_CONFIG]);
    client = transport === 'sse' ? await connectSse(gateway.url) : await connectHttp(gateway.url);
  });

  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    await gateway?.[Symbol.asyncDispose]();
  });

  const call = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args });

  it('lists the metatools, and in auto mode with a small catalog the tools directly', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const meta of [
      'search_tools',
      'list_tools',
      'list_namespaces',
      'describe_tool',
      'list_tool_examples',
      'run_tool',
      'run_chain',
    ]) {
      expect(names).toContain(meta);
    }
    expect(names).toContain('plantuml__encode');
    expect(names).toContain('fixture__add');
    for (const tool of tools) expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const search = tools.find((t) => t.name === 'search_tools');
    expect(search?.inputSchema.required).toEqual(['query']);
    expect(search?.annotations?.readOnlyHint).toBe(true);
  });

  it('search_tools finds the right tool first and returns no schemas', async () => {
    const result = await call('search_tools', { query: 'encode a diagram', limit: 3 });
    const tools = structured(result).tools as Record<string, unknown>[];
    expect(tools[0]?.id).toBe('plantuml:encode');
    expect(tools.length).toBeLessThanOrEqual(3);
    expect(tools[0]).not.toHaveProperty('inputSchema');
    expect(typeof tools[0]?.score).toBe('number');
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(structured(result));
  });

  it('search_tools applies filters before the limit and pages with cursors', async () => {
    const filtered = structured(await call('search_tools', { query: 'time', namespace: 'time', limit: 5 }))
      .tools as { id: string }[];
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((t) => t.id.startsWith('time:'))).toBe(true);

    const first = structured(await call('list_tools', { limit: 2 }));
    expect(first.tools).toHaveLength(2);
    const second = structured(await call('list_tools', { limit: 2, cursor: first.nextCursor }));
    const ids = [...first.tools, ...second.tools].map((t: { id: string }) => t.id);
    expect(new Set(ids).size).toBe(4);
    const bad = await call('list_tools', { cursor: 'garbage' });
    expect(bad.isError).toBe(true);
    expect(structured(bad).error.code).toBe('invalid_request');
  });

  it('list_namespaces counts the tools of each namespace', async () => {
    const { namespaces } = structured(await call('list_namespaces'));
    expect(namespaces).toContainEqual({ namespace: 'plantuml', tools: 2 });
    expect(namespaces.find((n: { namespace: string }) => n.namespace === 'fixture').tools).toBeGreaterThan(3);
  });

  it('describe_tool answers at each detail level', async () => {
    const summary = structured(
      await call('describe_tool', { tool_id: 'fixture:add', detail_level: 'summary' }),
    );
    expect(summary.summary).toContain('fixture:add');
    expect(summary.tool).not.toHaveProperty('inputSchema');
    const schema = structured(await call('describe_tool', { tool_id: 'fixture:add' }));
    expect(schema.tool.inputSchema.required).toEqual(['a', 'b']);
    expect(schema.tool.outputSchema.properties.sum).toBeDefined();
    expect(schema).not.toHaveProperty('examples');
    const full = structured(await call('describe_tool', { tool_id: 'fixture:add', detail_level: 'full' }));
    expect(full.examples).toEqual([{ title: 'two and two', args: { a: 2, b: 2 }, resultHint: '{"sum":4}' }]);
    const openai = structured(await call('describe_tool', { tool_id: 'fixture:add', format: 'openai' }));
    expect(openai.formatted).toMatchObject({ type: 'function', function: { name: 'fixture__add' } });
    const gemini = structured(await call('describe_tool', { tool_id: 'fixture:add', format: 'gemini' }));
    expect(gemini.formatted.parameters.type).toBe('OBJECT');
    const examples = structured(await call('list_tool_examples', { tool_id: 'fixture:add' }));
    expect(examples.examples[0].args).toEqual({ a: 2, b: 2 });
  });

  it('run_tool passes the tool result through; flat tools run directly', async () => {
    const result = await call('run_tool', {
      tool_id: 'plantuml:encode',
      args: { source: 'Bob -> Alice : hello' },
    });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toEqual({
      url: 'https://www.plantuml.com/plantuml/svg/SyfFKj2rKt3CoKnELR1Io4ZDoSa70000',
      encoded: 'SyfFKj2rKt3CoKnELR1Io4ZDoSa70000',
      format: 'svg',
    });
    expect(structured(await call('fixture__add', { a: 2, b: 40 }))).toEqual({ sum: 42 });
  });

  it('run_chain feeds the previous result into a strict next tool (encode → decode round trip)', async () => {
    const source = '@startuml\nA -> B : hi\n@enduml';
    const result = await call('run_chain', {
      steps: [
        { tool_id: 'plantuml:encode', args: { source, format: 'png' } },
        { tool_id: 'plantuml:decode', use_previous: true },
      ],
    });
    expect(result.isError).toBeFalsy();
    expect(structured(result).result).toEqual({ source });
    expect(structured(result).steps).toHaveLength(2);
  });

  it('reports every failure as an isError result with a stable code, and keeps serving', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['run_tool', { tool_id: 'nope:missing' }, 'tool_not_found'],
      ['run_tool', { tool_id: 'not an id' }, 'tool_not_found'],
      ['run_tool', { tool_id: 'fixture:add', args: { a: 'x' } }, 'validation_input'],
      ['run_tool', { tool_id: 'fixture:fail' }, 'execution_failed'],
      ['run_tool', { tool_id: 'fixture:hang' }, 'timeout'],
      ['run_tool', { tool_id: 'fixture:bad_output' }, 'validation_output'],
      ['run_tool', { tool_id: 'plantuml:encode', args: { source: '   ' } }, 'validation_input'],
      ['describe_tool', {}, 'validation_input'],
      ['search_tools', { query: 'x', limit: 1000 }, 'validation_input'],
      [
        'run_chain',
        { steps: [{ tool_id: 'fixture:noop' }, { tool_id: 'fixture:fail' }] },
        'chain_step_failed',
      ],
      ['fixture__fail', {}, 'execution_failed'],
    ];
    for (const [name, args, code] of cases) {
      const result = await call(name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(structured(result).error.code, `${name} ${JSON.stringify(args)}`).toBe(code);
      expect((result.content as { text: string }[])[0]?.text).toContain(`[${code}]`);
    }
    const invalid = structured(await call('run_tool', { tool_id: 'fixture:add', args: { a: 'x' } })).error;
    expect(invalid.message).toContain('/a');
    expect(invalid.message).toContain('/b');
    // A flat tool with an output schema: the error travels as text (clients check structuredContent
    // against the tool's output schema even on errors).
    const flat = await call('fixture__add', { a: 1 });
    expect(flat.isError).toBe(true);
    expect(flat.structuredContent).toBeUndefined();
    const texts = flat.content as { text: string }[];
    expect(texts[0]?.text).toMatch(/^\[validation_input\]/);
    expect(JSON.parse(texts[1]!.text).error.code).toBe('validation_input');
    const chain = structured(
      await call('run_chain', { steps: [{ tool_id: 'fixture:noop' }, { tool_id: 'fixture:fail' }] }),
    ).error;
    expect(chain.details.step).toBe(1);
    // Still serving.
    expect(structured(await call('fixture__add', { a: 1, b: 1 }))).toEqual({ sum: 2 });
  });

  it('answers a call to an unknown tool name with a JSON-RPC error', async () => {
    const error = await call('no_such_tool').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
  });

  it('sends progress notifications when the client asks for them', async () => {
    const seen: number[] = [];
    const result = await client.callTool(
      { name: 'run_tool', arguments: { tool_id: 'fixture:wait', args: { ms: 100 } } },
      undefined,
      { onprogress: (p) => seen.push(p.progress) },
    );
    expect(structured(result)).toEqual({ waited: 100 });
    // The SDK client handles notifications a microtask later than responses, so when the last
    // progress and the result arrive in one read it drops that progress. The raw stdio test checks
    // that all ten are sent before the result.
    expect(seen.slice(0, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(seen.length).toBeGreaterThanOrEqual(9);
  });

  it('stops a running call when the client cancels it', async () => {
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'run_tool', arguments: { tool_id: 'fixture:wait', args: { ms: 5000 } } },
      undefined,
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort('user stop'), 200);
    await expect(pending).rejects.toThrow();
    // The cancellation travels to the gateway; the handler's signal aborts there.
    let last: { aborted: boolean } = { aborted: false };
    for (let i = 0; i < 20 && !last.aborted; i++) {
      await new Promise((r) => setTimeout(r, 50));
      last = structured(await call('run_tool', { tool_id: 'fixture:last_abort' })) as { aborted: boolean };
    }
    expect(last.aborted).toBe(true);
  });
});
