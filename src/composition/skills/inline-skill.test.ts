// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` is the skill expression syntax under test.
import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { ToolScope } from '../tool-scope.js';
import { SkillCatalog } from './skill-catalog.js';

function setup() {
  const validator = new SchemaValidator();
  const catalog = new Catalog({ debounceMs: 0 });
  catalog.replaceSource('local', [
    makeEntry(makeTool('local:find'), async (_t, args) => ({ id: `id-${args.q}` })),
  ]);
  const pipeline = new RunPipeline({ catalog, validator });
  const scope = new ToolScope({ catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 });
  const skills = new SkillCatalog({ catalog, skills: [], scopeFor: () => scope, validator });
  return { skills, scope };
}

const INLINE = {
  input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  steps: [{ id: 'find', tool: 'local:find', args: { q: '${{ inputs.q }}' } }],
  output: { found: '${{ steps.find.result.id }}' },
};

describe('inline skills', () => {
  it('compiles and runs a definition given with the call, without registering it', async () => {
    const { skills, scope } = setup();
    const skill = skills.inline(INLINE);
    const result = await skills.runInline(skill, scope, { q: 'x' }, { caller: { identity: 't' } });
    expect(result.structuredContent).toEqual({ found: 'id-x' });
    expect(skills.size).toBe(0);
    expect(skills.plan(skill, scope, { q: 'x' })).toMatchObject({ skill: 'inline', valid: true });
  });

  it('validates it as a configured skill is, naming every bad key', () => {
    const { skills } = setup();
    let error: unknown;
    try {
      skills.inline({
        steps: [{ id: 'a', tool: 'local:find', args: { q: '${{ steps.nope.result }}' } }],
        extra: 1,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('validation_input');
    expect((error as GatewayError).message).toContain('skill.steps[0].args');
    expect((error as GatewayError).message).toMatch(/extra/);
  });
});
