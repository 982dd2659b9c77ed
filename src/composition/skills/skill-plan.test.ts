// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` is the skill expression syntax under test, not a JS template.
import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { ToolScope } from '../tool-scope.js';
import { compileSkill } from './compile-skill.js';
import { planSkill } from './skill-plan.js';

const validator = new SchemaValidator();

function scope() {
  const catalog = new Catalog();
  catalog.replaceSource('t', [
    makeEntry(makeTool('t:echo', { annotations: { readOnlyHint: true } })),
    makeEntry(
      makeTool('t:strict', {
        inputSchema: {
          type: 'object',
          properties: { n: { type: 'number' }, label: { type: 'string' } },
          required: ['n', 'label'],
          additionalProperties: false,
        },
      }),
    ),
    makeEntry(makeTool('hidden:thing')),
  ]);
  const pipeline = new RunPipeline({ catalog, validator });
  return new ToolScope(
    { catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 },
    { isVisible: (tool) => tool.namespace !== 'hidden' },
  );
}

const skill = compileSkill({
  name: 'plan',
  description: 'A skill to plan',
  input: {
    type: 'object',
    properties: { label: { type: 'string' }, go: { type: 'boolean' } },
    required: ['label'],
  },
  steps: [
    { id: 'first', tool: 't:echo', args: { any: 'thing' } },
    {
      id: 'typed',
      tool: 't:strict',
      args: { n: '${{ steps.first.result.n }}', label: '${{ inputs.label }}' },
    },
    {
      id: 'broken',
      tool: 't:strict',
      args: { n: 'not a number', label: 'x', extra: '${{ steps.first.result }}' },
    },
    { id: 'missing', tool: 'nowhere:tool' },
    { id: 'outside', tool: 'hidden:thing', when: 'inputs.go' },
  ],
});

describe('planSkill', () => {
  it('checks tools in the caller scope, validates literal args, and reports deferred ones', () => {
    const plan = planSkill(skill, scope(), validator);
    expect(plan.valid).toBe(false);
    expect(plan.inputs).toEqual({ given: false });
    const byId = Object.fromEntries(plan.steps.map((s) => [s.id, s]));
    expect(byId.first).toMatchObject({
      found: true,
      check: 'valid',
      args: { any: 'thing' },
      deferred: [],
      runs: 'always',
    });
    expect(byId.first?.annotations).toEqual({ readOnlyHint: true });
    expect(byId.typed).toMatchObject({
      found: true,
      check: 'partial',
      args: {},
      dependsOn: ['first'],
      deferred: [
        { path: '/n', references: ['steps.first.result.n'] },
        { path: '/label', references: ['inputs.label'] },
      ],
    });
    expect(byId.broken).toMatchObject({
      check: 'invalid',
      issues: [{ path: '/n', message: 'must be number' }],
      deferred: [{ path: '/extra', references: ['steps.first.result'] }],
    });
    expect(byId.missing).toMatchObject({ found: false, check: 'unchecked' });
    expect(byId.outside).toMatchObject({ found: false, runs: 'depends', when: 'inputs.go' });
    expect(plan.problems).toEqual([
      {
        code: 'validation_input',
        step: 'broken',
        index: 2,
        message: 'Step "broken": invalid arguments for t:strict: /n: must be number',
        issues: [{ path: '/n', message: 'must be number' }],
      },
      {
        code: 'tool_not_found',
        step: 'missing',
        index: 3,
        message: 'Step "missing" runs "nowhere:tool", which does not exist in this scope',
      },
      {
        code: 'tool_not_found',
        step: 'outside',
        index: 4,
        message: 'Step "outside" runs "hidden:thing", which does not exist in this scope',
      },
    ]);
  });

  it('with inputs, resolves the arguments and conditions that depend only on them', () => {
    const plan = planSkill(skill, scope(), validator, { label: 'L', go: false });
    expect(plan.inputs).toEqual({ given: true, valid: true });
    const typed = plan.steps.find((s) => s.id === 'typed');
    expect(typed).toMatchObject({ args: { label: 'L' }, deferred: [{ path: '/n' }], check: 'partial' });
    expect(plan.steps.find((s) => s.id === 'outside')).toMatchObject({ runs: 'no', check: 'unchecked' });
  });

  it('reports invalid inputs as a problem', () => {
    const plan = planSkill(skill, scope(), validator, { label: 3 });
    expect(plan.inputs).toEqual({
      given: true,
      valid: false,
      issues: [{ path: '/label', message: 'must be string' }],
    });
    expect(plan.problems[0]).toMatchObject({ code: 'validation_input', issues: [{ path: '/label' }] });
  });

  it('is valid when every tool exists and every known argument validates', () => {
    const ok = compileSkill({
      name: 'ok',
      description: 'fine',
      steps: [
        { id: 'a', tool: 't:echo' },
        { id: 'b', tool: 't:strict', args: { n: 1, label: 'x' } },
      ],
    });
    const plan = planSkill(ok, scope(), validator);
    expect(plan.valid).toBe(true);
    expect(plan.problems).toEqual([]);
    expect(plan.steps.map((s) => s.check)).toEqual(['valid', 'valid']);
  });
});
