// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` is the skill expression syntax under test, not a JS template.
import { describe, expect, it } from 'vitest';
import { failure } from '../../../test/support/expect-failure.js';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ProgressUpdate } from '../../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { ToolScope } from '../tool-scope.js';
import { compileSkill } from './compile-skill.js';
import type { SkillDefinition } from './skill-definition.js';
import { runSkill } from './skill-runner.js';

const validator = new SchemaValidator();
const call = { caller: { identity: 'test' } };

/** A scope over test tools; `log` records the order tools ran in. */
function setup() {
  const log: string[] = [];
  const catalog = new Catalog();
  const object = { type: 'object' };
  catalog.replaceSource('t', [
    makeEntry(makeTool('t:record', { inputSchema: object }), async (_t, args) => {
      log.push(String(args.tag));
      return { tag: args.tag, n: log.length };
    }),
    makeEntry(makeTool('t:echo', { inputSchema: object }), async (_t, args) => ({ echoed: args })),
    makeEntry(makeTool('t:json_text', { inputSchema: object }), async () => '{"a":[1,2],"s":"x"}'),
    makeEntry(makeTool('t:plain_text', { inputSchema: object }), async () => 'just words'),
    makeEntry(makeTool('t:fail', { inputSchema: object }), async () => {
      throw new Error('the tool broke');
    }),
    makeEntry(
      makeTool('t:strict', {
        inputSchema: {
          type: 'object',
          properties: { n: { type: 'number' } },
          required: ['n'],
          additionalProperties: false,
        },
      }),
      async (_t, args) => ({ n: args.n }),
    ),
    makeEntry(makeTool('t:hang', { inputSchema: object }), () => new Promise(() => {})),
    makeEntry(makeTool('hidden:secret', { inputSchema: object }), async () => ({ secret: 1 })),
  ]);
  const pipeline = new RunPipeline({ catalog, validator });
  const scope = new ToolScope(
    { catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 },
    { name: 'visible', isVisible: (tool) => tool.namespace !== 'hidden' },
  );
  return { log, scope };
}

const skill = (definition: Partial<SkillDefinition> & Pick<SkillDefinition, 'steps'>) =>
  compileSkill({ name: 'test', description: 'A test skill', ...definition });

describe('runSkill', () => {
  it('runs steps in the order written and binds inputs and results with their types', async () => {
    const { log, scope } = setup();
    const compiled = skill({
      input: {
        type: 'object',
        properties: { n: { type: 'integer' }, city: { type: 'string' }, tags: { type: 'array' } },
        required: ['n', 'city'],
      },
      steps: [
        { id: 'z_first', tool: 't:record', args: { tag: 'z' } },
        { id: 'a_second', tool: 't:record', args: { tag: 'a' } },
        { id: 'm_third', tool: 't:record', args: { tag: 'm' } },
        {
          id: 'bind',
          tool: 't:echo',
          args: {
            n: '${{ inputs.n }}',
            tags: '${{ inputs.tags }}',
            count: '${{ steps.m_third.result.n }}',
            text: '${{ inputs.city }} has ${{ inputs.n }} of ${{ inputs.tags }}',
            nested: { list: ['${{ steps.z_first.result }}'] },
          },
        },
      ],
      output: {
        first: '${{ steps.bind.result.echoed.nested.list[0].tag }}',
        n: '${{ steps.bind.result.echoed.n }}',
      },
    });
    const run = await runSkill(compiled, { n: 2, city: 'Oslo', tags: ['x', 'y'] }, scope, call, validator);
    expect(log).toEqual(['z', 'a', 'm']);
    expect(run.steps.map((s) => [s.id, s.status])).toEqual([
      ['z_first', 'ok'],
      ['a_second', 'ok'],
      ['m_third', 'ok'],
      ['bind', 'ok'],
    ]);
    expect(run.value).toEqual({ first: 'z', n: 2 });
  });

  it('passes typed values to the tool: numbers stay numbers, objects stay objects', async () => {
    const { scope } = setup();
    const compiled = skill({
      input: { type: 'object', properties: { n: { type: 'integer' } } },
      steps: [
        { id: 'one', tool: 't:echo', args: { n: '${{ inputs.n }}', o: { k: true } } },
        {
          id: 'two',
          tool: 't:echo',
          args: {
            n: '${{ steps.one.result.echoed.n }}',
            o: '${{ steps.one.result.echoed.o }}',
            s: 'n=${{ inputs.n }}',
          },
        },
      ],
    });
    const run = await runSkill(compiled, { n: 5 }, scope, call, validator);
    expect(run.value).toEqual({
      content: [{ type: 'text', text: '{"echoed":{"n":5,"o":{"k":true},"s":"n=5"}}' }],
      structuredContent: { echoed: { n: 5, o: { k: true }, s: 'n=5' } },
    });
  });

  it("a step's result is its text parsed as JSON when it parses, else the text", async () => {
    const { scope } = setup();
    const compiled = skill({
      steps: [
        { id: 'json', tool: 't:json_text' },
        { id: 'words', tool: 't:plain_text' },
        {
          id: 'use',
          tool: 't:echo',
          args: { second: '${{ steps.json.result.a[1] }}', words: '${{ steps.words.result }}' },
        },
      ],
      output: '${{ steps.use.result.echoed }}',
    });
    const run = await runSkill(compiled, {}, scope, call, validator);
    expect(run.value).toEqual({ second: 2, words: 'just words' });
  });

  it('skips a step whose `when` is falsy; its result is null and the last executed step gives the result', async () => {
    const { log, scope } = setup();
    const compiled = skill({
      input: { type: 'object', properties: { loud: { type: 'boolean' }, mode: { type: 'string' } } },
      steps: [
        { id: 'always', tool: 't:record', args: { tag: 'always' } },
        { id: 'loud', tool: 't:record', args: { tag: 'loud' }, when: '${{ inputs.loud }}' },
        { id: 'fast', tool: 't:record', args: { tag: 'fast' }, when: "inputs.mode == 'fast'" },
        { id: 'never', tool: 't:record', args: { tag: 'never' }, when: false },
      ],
    });
    const run = await runSkill(compiled, { mode: 'fast' }, scope, call, validator);
    expect(log).toEqual(['always', 'fast']);
    expect(run.steps.map((s) => s.status)).toEqual(['ok', 'skipped', 'ok', 'skipped']);
    expect(run.value).toMatchObject({ structuredContent: { tag: 'fast', n: 2 } });

    const withSkipped = skill({
      input: { type: 'object', properties: { loud: { type: 'boolean' } } },
      steps: [
        { id: 'maybe', tool: 't:record', args: { tag: 'maybe' }, when: 'inputs.loud' },
        {
          id: 'after',
          tool: 't:echo',
          args: { whole: '${{ steps.maybe.result }}', deep: '${{ steps.maybe.result.tag }}' },
        },
      ],
      output: '${{ steps.after.result.echoed }}',
    });
    expect((await runSkill(withSkipped, {}, scope, call, validator)).value).toEqual({
      whole: null,
      deep: null,
    });
  });

  it('without output and every step skipped, the result is null', async () => {
    const { scope } = setup();
    const compiled = skill({ steps: [{ id: 'never', tool: 't:record', when: false }] });
    expect((await runSkill(compiled, {}, scope, call, validator)).value).toBeNull();
  });

  it('a failing step fails the run with chain_step_failed naming the step, its index and the completed steps', async () => {
    const { log, scope } = setup();
    const compiled = skill({
      steps: [
        { id: 'one', tool: 't:record', args: { tag: '1' } },
        { id: 'skip', tool: 't:record', when: false },
        { id: 'boom', tool: 't:fail' },
        { id: 'after', tool: 't:record', args: { tag: 'after' } },
      ],
    });
    const error = await failure(runSkill(compiled, {}, scope, call, validator));
    expect(error.code).toBe('chain_step_failed');
    expect(error.message).toBe('Skill "test" step "boom" (t:fail) failed: [execution_failed] the tool broke');
    expect(error.details).toMatchObject({
      skill: 'test',
      step: 'boom',
      index: 2,
      tool_id: 't:fail',
      completed: ['one'],
      error: { code: 'execution_failed', message: 'the tool broke', tool_id: 't:fail' },
    });
    expect(log).toEqual(['1']);
  });

  it("arguments that break the step tool's schema fail that step with validation_input inside", async () => {
    const { scope } = setup();
    const compiled = skill({
      steps: [
        { id: 'text', tool: 't:plain_text' },
        { id: 'strict', tool: 't:strict', args: { n: '${{ steps.text.result }}' } },
      ],
    });
    const error = await failure(runSkill(compiled, {}, scope, call, validator));
    expect(error.code).toBe('chain_step_failed');
    expect(error.details).toMatchObject({ step: 'strict', index: 1, completed: ['text'] });
    expect(error.details?.error).toMatchObject({ code: 'validation_input' });
  });

  it('a reference to a missing part of a result fails the step, naming the step and the expression', async () => {
    const { scope } = setup();
    const compiled = skill({
      steps: [
        { id: 'first', tool: 't:echo', args: { a: 1 } },
        { id: 'second', tool: 't:echo', args: { x: 'v=${{ steps.first.result.echoed.b }}' } },
      ],
    });
    const error = await failure(runSkill(compiled, {}, scope, call, validator));
    expect(error.code).toBe('chain_step_failed');
    expect(error.message).toBe(
      'Skill "test" step "second" (t:echo) failed: [execution_failed] ${{ steps.first.result.echoed.b }}: steps.first.result.echoed has no "b" (it has a)',
    );
    expect(error.details).toMatchObject({
      step: 'second',
      index: 1,
      expression: 'steps.first.result.echoed.b',
      completed: ['first'],
    });
  });

  it('an index past the end of a list is an unknown reference too', async () => {
    const { scope } = setup();
    const compiled = skill({
      steps: [
        { id: 'json', tool: 't:json_text' },
        { id: 'use', tool: 't:echo', args: { x: '${{ steps.json.result.a[5] }}' } },
      ],
    });
    const error = await failure(runSkill(compiled, {}, scope, call, validator));
    expect(error.details?.error).toMatchObject({
      message: '${{ steps.json.result.a[5] }}: steps.json.result.a has 2 items, no [5]',
    });
  });

  it('validates the inputs against the input schema (validation_input) before running anything', async () => {
    const { log, scope } = setup();
    const compiled = skill({
      input: {
        type: 'object',
        properties: { n: { type: 'integer' } },
        required: ['n'],
        additionalProperties: false,
      },
      steps: [{ id: 'one', tool: 't:record', args: { tag: '${{ inputs.n }}' } }],
    });
    const missing = await failure(runSkill(compiled, {}, scope, call, validator));
    expect(missing.code).toBe('validation_input');
    expect(missing.details?.issues).toEqual([{ path: '/n', message: "must have required property 'n'" }]);
    const wrong = await failure(runSkill(compiled, { n: 'x' }, scope, call, validator));
    expect(wrong.details?.issues).toEqual([{ path: '/n', message: 'must be integer' }]);
    expect((await failure(runSkill(compiled, [1], scope, call, validator))).code).toBe('validation_input');
    expect(log).toEqual([]);
  });

  it('fills in the input defaults the schema declares', async () => {
    const { scope } = setup();
    const compiled = skill({
      input: { type: 'object', properties: { tz: { type: 'string', default: 'UTC' } } },
      steps: [{ id: 'one', tool: 't:echo', args: { tz: '${{ inputs.tz }}' } }],
      output: '${{ steps.one.result.echoed.tz }}',
    });
    expect((await runSkill(compiled, {}, scope, call, validator)).value).toBe('UTC');
    expect((await runSkill(compiled, { tz: 'Asia/Tokyo' }, scope, call, validator)).value).toBe('Asia/Tokyo');
  });

  it('a step whose tool is not in the caller scope fails with tool_not_found before any step runs', async () => {
    const { log, scope } = setup();
    const compiled = skill({
      steps: [
        { id: 'one', tool: 't:record', args: { tag: '1' } },
        { id: 'peek', tool: 'hidden:secret' },
      ],
    });
    const error = await failure(runSkill(compiled, {}, scope, call, validator));
    expect(error.code).toBe('tool_not_found');
    expect(error.message).toBe(
      'Skill "test" step "peek" (index 1) runs "hidden:secret", which does not exist in this scope',
    );
    expect(error.details).toEqual({ skill: 'test', step: 'peek', index: 1, tool_id: 'hidden:secret' });
    expect(log).toEqual([]);
  });

  it('stops at maxToolCalls with sandbox_violation; skipped steps do not count', async () => {
    const { log, scope } = setup();
    const compiled = skill({
      limits: { maxToolCalls: 2 },
      steps: [
        { id: 'a', tool: 't:record', args: { tag: 'a' } },
        { id: 'skipped', tool: 't:record', when: false },
        { id: 'b', tool: 't:record', args: { tag: 'b' } },
        { id: 'c', tool: 't:record', args: { tag: 'c' } },
      ],
    });
    const error = await failure(runSkill(compiled, {}, scope, call, validator));
    expect(error.code).toBe('sandbox_violation');
    expect(error.details).toMatchObject({
      limit: 'maxToolCalls',
      maxToolCalls: 2,
      step: 'c',
      completed: ['a', 'b'],
    });
    expect(log).toEqual(['a', 'b']);
  });

  it('stops at timeoutMs with timeout naming the running step, without waiting for it', async () => {
    const { scope } = setup();
    const compiled = skill({
      limits: { timeoutMs: 150 },
      steps: [
        { id: 'quick', tool: 't:echo' },
        { id: 'stuck', tool: 't:hang' },
      ],
    });
    const started = Date.now();
    const error = await failure(runSkill(compiled, {}, scope, call, validator));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error.code).toBe('timeout');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('Skill "test" did not finish within 150 ms (running step "stuck")');
    expect(error.details).toMatchObject({ step: 'stuck', index: 1, completed: ['quick'], timeoutMs: 150 });
  });

  it("the caller's cancellation stops the run with cancelled", async () => {
    const { scope } = setup();
    const compiled = skill({ steps: [{ id: 'stuck', tool: 't:hang' }] });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new GatewayError('cancelled', 'client went away')), 50);
    const error = await failure(
      runSkill(compiled, {}, scope, { ...call, signal: controller.signal }, validator),
    );
    expect(error.code).toBe('cancelled');
    expect(error.message).toBe('client went away');
  });

  it('reports progress per step: steps done, total, a message naming the step; then done', async () => {
    const { scope } = setup();
    const updates: ProgressUpdate[] = [];
    const compiled = skill({
      steps: [
        { id: 'first', tool: 't:echo' },
        { id: 'maybe', tool: 't:echo', when: false },
        { id: 'last', tool: 't:record', args: { tag: 'x' } },
      ],
    });
    await runSkill(compiled, {}, scope, { ...call, progress: (u) => updates.push(u) }, validator);
    expect(updates).toEqual([
      { progress: 0, total: 3, message: 'step 1/3: first (t:echo)' },
      { progress: 1, total: 3, message: 'step 2/3: maybe skipped' },
      { progress: 2, total: 3, message: 'step 3/3: last (t:record)' },
      { progress: 3, total: 3, message: 'done' },
    ]);
  });
});
