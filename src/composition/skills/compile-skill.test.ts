// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` is the skill expression syntax under test, not a JS template.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { compileSkill, skillIssues } from './compile-skill.js';
import { SKILL_LIMITS, type SkillDefinition } from './skill-definition.js';

const base: SkillDefinition = {
  name: 'report',
  description: 'A report',
  input: { type: 'object', properties: { tz: { type: 'string' } } },
  steps: [
    { id: 'now', tool: 'time:now', args: { timezone: '${{ inputs.tz }}' } },
    { id: 'stats', tool: 'text:stats', args: { text: '${{ steps.now.result.iso }}' }, when: 'inputs.tz' },
  ],
  output: { iso: '${{ steps.now.result.iso }}', words: '${{ steps.stats.result.words }}' },
};

const with_ = (patch: Partial<SkillDefinition>): SkillDefinition => ({ ...base, ...patch });

describe('compileSkill', () => {
  it('compiles steps in order with their dependencies, a bare `when`, and default limits', () => {
    const skill = compileSkill(base);
    expect(skill.toolId).toBe('skill:report');
    expect(skill.steps.map((s) => [s.index, s.id, s.tool, s.dependsOn])).toEqual([
      [0, 'now', 'time:now', []],
      [1, 'stats', 'text:stats', ['now']],
    ]);
    expect(skill.steps[1]?.when?.source).toBe('inputs.tz');
    expect(skill.limits).toEqual({
      timeoutMs: SKILL_LIMITS.defaultTimeoutMs,
      maxToolCalls: SKILL_LIMITS.defaultMaxToolCalls,
    });
  });

  it('throws config_invalid naming every problem', () => {
    let caught: unknown;
    try {
      compileSkill(
        with_({
          name: 'bad name',
          steps: [{ id: 'a', tool: 'nope' }],
          output: { iso: '${{ steps.now.result.iso }}' },
        }),
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).code).toBe('config_invalid');
    expect((caught as GatewayError).message).toBe(
      'Skill "bad name": name: must be a tool name (no whitespace or ":"); ' +
        'steps[0].tool: "nope" is not a tool id; ids look like "namespace:name"; ' +
        'output.iso: steps.now.result.iso: there is no step "now"',
    );
    expect((caught as GatewayError).details?.issues).toHaveLength(3);
  });
});

describe('skillIssues', () => {
  const issues = (patch: Partial<SkillDefinition>) => skillIssues(with_(patch));

  it('accepts the base skill', () => {
    expect(skillIssues(base, new SchemaValidator())).toEqual([]);
  });

  it('refuses duplicate and malformed step ids', () => {
    expect(
      issues({
        output: undefined,
        steps: [
          { id: 'a', tool: 'time:now' },
          { id: 'a', tool: 'time:now' },
          { id: '1x', tool: 'time:now' },
        ],
      }),
    ).toEqual([
      { path: ['steps', 1, 'id'], message: 'duplicate step id "a" (also steps[0])' },
      {
        path: ['steps', 2, 'id'],
        message:
          'must be letters, digits, "_" or "-", not starting with a digit or "-", at most 64 characters',
      },
    ]);
  });

  it('refuses references to later steps, to itself, to unknown steps and to undeclared inputs', () => {
    expect(
      issues({
        output: '${{ steps.ghost.result }}',
        steps: [
          { id: 'a', tool: 'time:now', args: { x: '${{ steps.b.result.x }}', y: 'at ${{ inputs.nope }}' } },
          { id: 'b', tool: 'time:now', when: '${{ steps.b.result }}' },
        ],
      }),
    ).toEqual([
      {
        path: ['steps', 0, 'args', 'x'],
        message: 'steps.b.result.x: step "b" runs later (steps run in the order written)',
      },
      {
        path: ['steps', 0, 'args', 'y'],
        message: 'inputs.nope: input "nope" is not declared in input.properties',
      },
      { path: ['steps', 1, 'when'], message: 'steps.b.result: a step cannot use its own result' },
      { path: ['output'], message: 'steps.ghost.result: there is no step "ghost"' },
    ]);
  });

  it('reports expression syntax errors at the key that holds them', () => {
    const found = issues({
      output: undefined,
      steps: [{ id: 'a', tool: 'time:now', args: { deep: ['${{ inputs.tz == }}'] } }],
    });
    expect(found).toHaveLength(1);
    expect(found[0]?.path).toEqual(['steps', 0, 'args', 'deep', 0]);
    expect(found[0]?.message).toMatch(/expected a value at the end/);
  });

  it('refuses more steps than the limit, skill steps, bad args, a non-object input and bad limits', () => {
    const many = Array.from({ length: SKILL_LIMITS.maxSteps + 1 }, (_, i) => ({
      id: `s${i}`,
      tool: 'time:now',
    }));
    expect(issues({ output: undefined, steps: many })).toEqual([
      {
        path: ['steps'],
        message: `a skill may have at most ${SKILL_LIMITS.maxSteps} steps (got ${SKILL_LIMITS.maxSteps + 1})`,
      },
    ]);
    expect(
      issues({
        output: undefined,
        input: { type: 'string' },
        limits: { timeoutMs: 0, maxToolCalls: SKILL_LIMITS.maxToolCalls + 1 },
        steps: [
          { id: 'a', tool: 'skill:other' },
          { id: 'b', tool: 'time:now', args: 'text ${{ inputs }}' },
          { id: 'c', tool: 'time:now', when: '${{ inputs }} and more' },
        ],
      }).map((i) => `${i.path.join('.')}: ${i.message}`),
    ).toEqual([
      'input.type: must be "object" (a skill takes named inputs)',
      'steps.0.tool: a step cannot run another skill ("skill:other"); copy its steps',
      'steps.1.args: must be an object, or a string that is exactly one ${{ … }} expression giving the object',
      'steps.2.when: must be exactly one expression',
      'limits.timeoutMs: must be an integer from 1 to 600000',
      'limits.maxToolCalls: must be an integer from 1 to 1000',
    ]);
  });

  it('with a validator, refuses an input schema ajv cannot compile', () => {
    const found = skillIssues(
      with_({ input: { type: 'object', properties: { tz: { type: 'nonsense' } } } }),
      new SchemaValidator(),
    );
    expect(found.map((i) => i.path)).toEqual([['input']]);
    expect(found[0]?.message).toMatch(/Unusable JSON Schema/);
  });
});
