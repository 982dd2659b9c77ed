// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` is the skill expression syntax under test, not a JS template.
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { parseConfigText, parseConfigValue } from './load-config.js';

function issuesOf(raw: Record<string, unknown>): { path: string; message: string }[] {
  try {
    parseConfigValue(raw);
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'config_invalid') {
      return error.details?.issues as { path: string; message: string }[];
    }
    throw error;
  }
  throw new Error('expected the config to be refused');
}

const step = { id: 'now', tool: 'time:now', args: { timezone: '${{ inputs.tz }}' } };
const skill = {
  name: 'clock',
  description: 'Tell the time',
  input: { type: 'object', properties: { tz: { type: 'string' } } },
  steps: [step],
};

describe('skills config section', () => {
  it('accepts skills from YAML, applying default limits', () => {
    const text = [
      'skills:',
      '  - name: clock',
      '    description: Tell the time',
      '    input: { type: object, properties: { tz: { type: string, default: UTC } } }',
      '    steps:',
      '      - { id: now, tool: "time:now", args: { timezone: "${{ inputs.tz }}" } }',
      '      - id: stats',
      '        tool: text:stats',
      '        when: inputs.tz',
      '        args: { text: "It is ${{ steps.now.result.iso }}" }',
      '    output: { iso: "${{ steps.now.result.iso }}" }',
      '    limits: { timeoutMs: "5000" }',
    ].join('\n');
    const { config } = parseConfigText(text, 'yaml');
    expect(config.skills).toHaveLength(1);
    expect(config.skills[0]).toMatchObject({
      name: 'clock',
      tags: [],
      limits: { timeoutMs: 5000, maxToolCalls: 50 },
      steps: [{ id: 'now' }, { id: 'stats', when: 'inputs.tz' }],
    });
  });

  it('is strict: unknown keys in a skill or a step are errors naming the key', () => {
    expect(issuesOf({ skills: [{ ...skill, stpes: [] }] })).toContainEqual({
      path: 'skills[0].stpes',
      message: 'unknown key (did you mean "steps"?)',
    });
    expect(issuesOf({ skills: [{ ...skill, steps: [{ ...step, tool_id: 'x' }] }] })).toContainEqual({
      path: 'skills[0].steps[0].tool_id',
      message: 'unknown key',
    });
  });

  it('refuses duplicate step ids, duplicate skill names and invalid names at their keys', () => {
    const twice = { ...skill, steps: [step, { ...step }] };
    expect(issuesOf({ skills: [twice] })).toEqual([
      { path: 'skills[0].steps[1].id', message: 'duplicate step id "now" (also steps[0])' },
    ]);
    expect(issuesOf({ skills: [skill, skill] })).toEqual([
      { path: 'skills[1].name', message: 'duplicate skill name "clock" (also skills[0])' },
    ]);
    expect(issuesOf({ skills: [{ ...skill, name: 'two words' }] })).toEqual([
      { path: 'skills[0].name', message: 'must be a tool name (no whitespace or ":")' },
    ]);
  });

  it('refuses bad expressions and references where they are written', () => {
    const bad = {
      ...skill,
      steps: [
        { ...step, args: { timezone: '${{ inputs.zone }}', x: '${{ steps.later.result }}' } },
        { id: 'later', tool: 'time:now' },
      ],
    };
    expect(issuesOf({ skills: [bad] })).toEqual([
      {
        path: 'skills[0].steps[0].args.timezone',
        message: 'inputs.zone: input "zone" is not declared in input.properties',
      },
      {
        path: 'skills[0].steps[0].args.x',
        message: 'steps.later.result: step "later" runs later (steps run in the order written)',
      },
    ]);
  });

  it('refuses a skill with more steps than allowed when the config is loaded', () => {
    const steps = Array.from({ length: 51 }, (_, i) => ({ id: `s${i}`, tool: 'time:now' }));
    expect(issuesOf({ skills: [{ ...skill, steps }] })).toEqual([
      { path: 'skills[0].steps', message: 'a skill may have at most 50 steps (got 51)' },
    ]);
  });

  it('refuses limits out of range and an input schema ajv cannot use', () => {
    const issues = issuesOf({
      skills: [
        {
          ...skill,
          input: { type: 'object', properties: { tz: { type: 'bogus' } } },
          limits: { timeoutMs: 0 },
        },
      ],
    });
    expect(issues).toContainEqual({ path: 'skills[0].limits.timeoutMs', message: 'must be at least 1' });
    expect(issues.filter((i) => i.path === 'skills[0].limits.timeoutMs')).toHaveLength(1);
    expect(issuesOf({ skills: [{ ...skill, steps: [] }] })).toEqual([
      { path: 'skills[0].steps', message: 'a skill needs at least one step' },
    ]);
    const schemaIssues = issuesOf({
      skills: [{ ...skill, input: { type: 'object', properties: { tz: { type: 'bogus' } } } }],
    });
    expect(schemaIssues.map((i) => i.path)).toEqual(['skills[0].input']);
  });
});
