// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` is the skill expression syntax under test, not a JS template.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayFrom, servedGateway } from '../support/in-process-gateway.js';

/** Skills end to end: config → catalog tool `skill:<name>` → MCP metatools, over Streamable HTTP. */

const record = (id: string, tag: string) => ({
  id,
  tool: 'skillfx:record',
  args: { run: '${{ inputs.run }}', tag },
});
const runInput = { type: 'object', properties: { run: { type: 'string' } }, required: ['run'] };

const SKILLS = [
  {
    name: 'tokyo_clock',
    title: 'Tokyo clock',
    description:
      'Tell the current time in Tokyo and in UTC, and count the words of a sentence about the weekday.',
    input: {
      type: 'object',
      properties: { sentence: { type: 'string', default: 'Today is' } },
      additionalProperties: false,
    },
    steps: [
      { id: 'now', tool: 'time:now', args: { timezone: 'Asia/Tokyo' } },
      { id: 'utc', tool: 'time:convert', args: { datetime: '${{ steps.now.result.iso }}', timezone: 'UTC' } },
      {
        id: 'stats',
        tool: 'text:stats',
        args: { text: '${{ inputs.sentence }} ${{ steps.utc.result.weekday }}' },
      },
      { id: 'words', tool: 'json:query', args: { expression: 'words', data: '${{ steps.stats.result }}' } },
    ],
    output: {
      tokyo: '${{ steps.now.result.offset }}',
      utc: '${{ steps.utc.result.offset }}',
      sameInstant: '${{ steps.now.result.epochMs == steps.utc.result.epochMs }}',
      words: '${{ steps.words.result.result }}',
    },
  },
  {
    name: 'ordered',
    description: 'Record tags in a fixed order, then read them back.',
    input: runInput,
    steps: [
      record('third_letter', 'c'),
      record('first_letter', 'a'),
      { ...record('never', 'never'), when: '${{ inputs.run == "no such run" }}' },
      record('second_letter', 'b'),
      { id: 'read', tool: 'skillfx:log', args: { run: '${{ inputs.run }}' } },
    ],
    output: '${{ steps.read.result.tags }}',
  },
  {
    name: 'breaks',
    description: 'Fails at its second step.',
    input: runInput,
    steps: [record('first', 'x'), { id: 'boom', tool: 'skillfx:explode' }, record('after', 'y')],
  },
  {
    name: 'slowpoke',
    description: 'Takes longer than it may.',
    input: runInput,
    limits: { timeoutMs: 300 },
    steps: [
      { id: 'quick', tool: 'skillfx:count', args: { run: '${{ inputs.run }}' } },
      { id: 'wait', tool: 'skillfx:slow', args: { ms: 5000 } },
    ],
  },
  {
    name: 'capped',
    description: 'Wants more tool calls than it may make.',
    input: runInput,
    limits: { maxToolCalls: 2 },
    steps: [record('one', '1'), record('two', '2'), record('three', '3')],
  },
  {
    name: 'needs_remote',
    description: 'Uses a tool of a server that is not there, and passes a bad literal argument.',
    steps: [
      { id: 'fetch', tool: 'remote:fetch', args: { url: 'https://example.com' } },
      { id: 'clock', tool: 'time:now', args: { timezone: 5 } },
      { id: 'convert', tool: 'time:convert', args: { datetime: '${{ steps.clock.result.iso }}' } },
    ],
  },
  {
    name: 'wipe',
    description: 'Reads the time, then erases something.',
    steps: [
      { id: 'now', tool: 'time:now' },
      { id: 'erase', tool: 'skillfx:erase' },
    ],
  },
];

let client: Client;
let dispose: () => Promise<void>;

beforeAll(async () => {
  const served = await servedGateway({
    tools: { modules: ['test/fixtures/tools/skill-fixture-tools.ts'] },
    exposure: 'metatools',
    skills: SKILLS,
  });
  client = served.client;
  dispose = async () => {
    await served[Symbol.asyncDispose]();
  };
});
afterAll(() => dispose());

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function errorOf(result: CallToolResult) {
  expect(result.isError).toBe(true);
  return (
    result.structuredContent as {
      error: { code: string; message: string; details?: Record<string, unknown> };
    }
  ).error;
}

describe('skills over MCP', () => {
  it('serves the skill metatools', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['list_skills', 'describe_skill', 'plan_skill', 'run_skill']),
    );
  });

  it('search_tools finds a skill as the tool skill:<name>, and run_tool runs it with built-in tools', async () => {
    const found = await call('search_tools', { query: 'current time in Tokyo and UTC word count', limit: 3 });
    const ids = (found.structuredContent as { tools: { id: string }[] }).tools.map((t) => t.id);
    expect(ids[0]).toBe('skill:tokyo_clock');
    const result = await call('run_tool', { tool_id: 'skill:tokyo_clock', args: {} });
    expect(result.isError).toBeFalsy();
    // "Today is <weekday>": three words; the default input was applied.
    expect(result.structuredContent).toEqual({ tokyo: '+09:00', utc: '+00:00', sameInstant: true, words: 3 });
  });

  it('runs the steps exactly in the order written, skipping a step whose when is false', async () => {
    const result = await call('run_skill', { name: 'ordered', inputs: { run: 'order-1' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ result: ['c', 'a', 'b'] });
  });

  it('sends one progress notification per step, in order, before the result', async () => {
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'run_skill', arguments: { name: 'ordered', inputs: { run: 'order-2' } } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError).toBeFalsy();
    expect(progress.map((p) => [p.progress, p.total, p.message])).toEqual([
      [0, 5, 'step 1/5: third_letter (skillfx:record)'],
      [1, 5, 'step 2/5: first_letter (skillfx:record)'],
      [2, 5, 'step 3/5: never skipped'],
      [3, 5, 'step 4/5: second_letter (skillfx:record)'],
      [4, 5, 'step 5/5: read (skillfx:log)'],
      [5, 5, 'done'],
    ]);
  });

  it('a failing step fails the run with chain_step_failed naming that step', async () => {
    const error = errorOf(await call('run_skill', { name: 'breaks', inputs: { run: 'breaks-1' } }));
    expect(error.code).toBe('chain_step_failed');
    expect(error.details).toMatchObject({
      skill: 'breaks',
      step: 'boom',
      index: 1,
      tool_id: 'skillfx:explode',
      completed: ['first'],
      error: { code: 'execution_failed', message: 'exploded on purpose' },
    });
    const log = await call('run_tool', { tool_id: 'skillfx:log', args: { run: 'breaks-1' } });
    expect(log.structuredContent).toEqual({ tags: ['x'] });
  });

  it('validates the inputs against the skill input schema', async () => {
    const error = errorOf(await call('run_skill', { name: 'ordered', inputs: {} }));
    expect(error.code).toBe('validation_input');
    expect(error.details?.issues).toEqual([{ path: '/run', message: "must have required property 'run'" }]);
  });

  it('stops a run past its time limit with timeout, naming the step', async () => {
    const started = Date.now();
    const error = errorOf(await call('run_skill', { name: 'slowpoke', inputs: { run: 'slow-1' } }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toMatchObject({ code: 'timeout', retryable: false });
    expect(error.details).toMatchObject({ skill: 'slowpoke', step: 'wait', index: 1, completed: ['quick'] });
  });

  it('a read-only skill that timed out is not run again by the retry policy (its steps ran once)', async () => {
    errorOf(await call('run_skill', { name: 'slowpoke', inputs: { run: 'slow-2' } }));
    const log = await call('run_tool', { tool_id: 'skillfx:log', args: { run: 'slow-2' } });
    expect(log.structuredContent).toEqual({ tags: ['count'] });
  });

  it('stops a run past its tool-call limit with sandbox_violation', async () => {
    const error = errorOf(await call('run_skill', { name: 'capped', inputs: { run: 'capped-1' } }));
    expect(error.code).toBe('sandbox_violation');
    expect(error.details).toMatchObject({ maxToolCalls: 2, step: 'three', completed: ['one', 'two'] });
  });

  it('a skill whose step tool is missing fails at run time with tool_not_found naming the step', async () => {
    const error = errorOf(await call('run_skill', { name: 'needs_remote' }));
    expect(error.code).toBe('tool_not_found');
    expect(error.details).toMatchObject({ step: 'fetch', index: 0, tool_id: 'remote:fetch' });
  });

  it('plan_skill reports missing tools, invalid literal arguments and arguments that wait for earlier steps', async () => {
    const result = await call('plan_skill', { name: 'needs_remote' });
    const plan = result.structuredContent as {
      valid: boolean;
      problems: { code: string; step: string; issues?: unknown }[];
      steps: { id: string; found: boolean; check: string; deferred: unknown[] }[];
    };
    expect(plan.valid).toBe(false);
    expect(plan.problems.map((p) => [p.code, p.step])).toEqual([
      ['tool_not_found', 'fetch'],
      ['validation_input', 'clock'],
    ]);
    expect(plan.problems[1]?.issues).toEqual([{ path: '/timezone', message: 'must be string' }]);
    expect(plan.steps.map((s) => [s.id, s.found, s.check])).toEqual([
      ['fetch', false, 'unchecked'],
      ['clock', true, 'invalid'],
      ['convert', true, 'partial'],
    ]);
    expect(plan.steps[2]?.deferred).toEqual([{ path: '/datetime', references: ['steps.clock.result.iso'] }]);

    const ok = (await call('plan_skill', { name: 'tokyo_clock', inputs: { sentence: 'Hi' } }))
      .structuredContent;
    expect(ok).toMatchObject({ valid: true, problems: [], inputs: { given: true, valid: true } });
  });

  it('derives each skill tool annotations from its steps', async () => {
    const list = (await call('list_skills', {})).structuredContent as {
      skills: { name: string; annotations: Record<string, unknown> }[];
    };
    expect(list.skills.map((s) => s.name)).toEqual(SKILLS.map((s) => s.name));
    const hints = Object.fromEntries(list.skills.map((s) => [s.name, s.annotations]));
    expect(hints.tokyo_clock).toEqual({
      title: 'Tokyo clock',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(hints.wipe).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(hints.needs_remote).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      openWorldHint: true,
    });
    const described = await call('describe_tool', { tool_id: 'skill:wipe' });
    expect((described.structuredContent as { tool: { annotations: unknown } }).tool.annotations).toEqual(
      hints.wipe,
    );
  });

  it('describe_skill shows the steps as written; an unknown skill is tool_not_found', async () => {
    const described = (await call('describe_skill', { name: 'ordered' })).structuredContent as {
      skill: { tool_id: string; steps: { id: string; dependsOn: string[] }[]; input: unknown };
    };
    expect(described.skill.tool_id).toBe('skill:ordered');
    expect(described.skill.input).toEqual(runInput);
    expect(described.skill.steps.map((s) => s.id)).toEqual([
      'third_letter',
      'first_letter',
      'never',
      'second_letter',
      'read',
    ]);
    expect(errorOf(await call('run_skill', { name: 'nope' })).code).toBe('tool_not_found');
  });
});

describe('skills in a toolset', () => {
  it("run in the caller's scope: a step outside the toolset does not exist for it", async () => {
    const gateway = await gatewayFrom({
      toolsets: [{ name: 'clock', namespaces: ['time', 'skill'] }],
      skills: [SKILLS[0]],
    });
    const listener = await gateway.serveHttp('127.0.0.1', 0);
    const connect = async (path: string) => {
      const c = new Client({ name: 'it', version: '1' });
      await c.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}${path}`)));
      return c;
    };
    const [whole, confined] = [await connect('/mcp'), await connect('/mcp/clock')];
    try {
      const run = (c: Client) =>
        c.callTool({ name: 'run_skill', arguments: { name: 'tokyo_clock' } }) as Promise<CallToolResult>;
      expect((await run(whole)).structuredContent).toMatchObject({ tokyo: '+09:00', words: 3 });
      const error = errorOf(await run(confined));
      expect(error.code).toBe('tool_not_found');
      expect(error.details).toMatchObject({ step: 'stats', index: 2, tool_id: 'text:stats' });
      const plan = (await confined.callTool({ name: 'plan_skill', arguments: { name: 'tokyo_clock' } }))
        .structuredContent as { problems: { code: string; step: string }[] };
      expect(plan.problems.map((p) => [p.code, p.step])).toEqual([
        ['tool_not_found', 'stats'],
        ['tool_not_found', 'words'],
      ]);
    } finally {
      await whole.close();
      await confined.close();
      await gateway.close();
    }
  });
});
