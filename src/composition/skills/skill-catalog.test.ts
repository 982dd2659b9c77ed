// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${{ … }}` is the skill expression syntax under test, not a JS template.
import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../../test/support/test-tools.js';
import { Catalog } from '../../catalog/catalog.js';
import { ToolSearch } from '../../discovery/tool-search.js';
import { RunPipeline } from '../../execution/run-pipeline.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { CallerContext, ProgressUpdate } from '../../foundation/ports/tool-backend.js';
import { SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { ToolScope } from '../tool-scope.js';
import { SkillCatalog } from './skill-catalog.js';
import type { SkillDefinition } from './skill-definition.js';

const validator = new SchemaValidator();
const READ_ONLY = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

const definitions: SkillDefinition[] = [
  {
    name: 'lookup',
    title: 'Look up',
    description: 'Look a thing up and summarise it',
    tags: ['Research'],
    input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    steps: [
      { id: 'find', tool: 'local:find', args: { q: '${{ inputs.q }}' } },
      { id: 'later', tool: 'remote:fetch', args: { id: '${{ steps.find.result.id }}' } },
    ],
    output: { id: '${{ steps.find.result.id }}', body: '${{ steps.later.result.body }}' },
    limits: { timeoutMs: 5000 },
  },
];

/** A catalog with one local tool; `remote:fetch` arrives later, as a downstream server's would. */
function setup(
  options: { scopeFor?: (caller: CallerContext, all: ToolScope, local: ToolScope) => ToolScope } = {},
) {
  const catalog = new Catalog({ debounceMs: 0 });
  catalog.replaceSource('local', [
    makeEntry(makeTool('local:find', { annotations: READ_ONLY }), async (_t, args) => ({
      id: `id-${args.q}`,
    })),
  ]);
  const pipeline = new RunPipeline({ catalog, validator });
  const deps = { catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 5 };
  const all = new ToolScope(deps);
  const local = new ToolScope(deps, { name: 'local-only', isVisible: (t) => t.namespace !== 'remote' });
  const skills = new SkillCatalog({
    catalog,
    skills: definitions,
    scopeFor: (caller) => options.scopeFor?.(caller, all, local) ?? all,
    validator,
  });
  skills.attach();
  catalog.flush();
  const connectRemote = () => {
    catalog.replaceSource('remote', [
      makeEntry(makeTool('remote:fetch', { annotations: READ_ONLY }), async (_t, args) => ({
        body: `body of ${args.id}`,
      })),
    ]);
    catalog.flush();
  };
  return { catalog, skills, all, local, connectRemote };
}

describe('SkillCatalog', () => {
  it('registers each skill as the tool skill:<name>, with its input schema, tags and title', () => {
    const { catalog } = setup();
    const tool = catalog.get('skill:lookup')?.tool;
    expect(tool).toMatchObject({
      id: 'skill:lookup',
      namespace: 'skill',
      name: 'lookup',
      title: 'Look up',
      description: 'Look a thing up and summarise it',
      inputSchema: definitions[0]?.input,
      tags: ['skill', 'research'],
      origin: { sourceId: 'skill:lookup', kind: 'skill', originalName: 'lookup' },
    });
    // The pipeline's timer backs up the skill's own limit, a little later.
    expect(tool?.metadata.extra?.timeoutMs).toBe(6000);
  });

  it('derives annotations from the step tools and recomputes them when the catalog changes', () => {
    const { catalog, connectRemote } = setup();
    // remote:fetch is not there yet: the worst case.
    expect(catalog.get('skill:lookup')?.tool.annotations).toEqual({
      title: 'Look up',
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    connectRemote();
    expect(catalog.get('skill:lookup')?.tool.annotations).toEqual({
      title: 'Look up',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    // Recomputing is idempotent: the catalog settles (no change loop).
    const version = catalog.version;
    catalog.flush();
    expect(catalog.version).toBe(version);
  });

  it('runs through the pipeline as a tool; a step whose tool is missing fails at run time with tool_not_found', async () => {
    const { all, connectRemote } = setup();
    const call = { caller: { identity: 't' } };
    await expect(all.run('skill:lookup', { q: 'x' }, call)).rejects.toMatchObject({
      code: 'tool_not_found',
      toolId: 'skill:lookup',
      details: { skill: 'lookup', step: 'later', index: 1, tool_id: 'remote:fetch' },
    });
    connectRemote();
    const result = await all.run('skill:lookup', { q: 'x' }, call);
    expect(result.structuredContent).toEqual({ id: 'id-x', body: 'body of id-x' });
    await expect(all.run('skill:lookup', {}, call)).rejects.toMatchObject({ code: 'validation_input' });
  });

  it("runs the steps in the caller's scope, found through the scopeFor port", async () => {
    const seen: CallerContext[] = [];
    const { all, connectRemote } = setup({
      scopeFor: (caller, everything, local) => {
        seen.push(caller);
        return caller.toolset === 'local-only' ? local : everything;
      },
    });
    connectRemote();
    const confined = { caller: { identity: 'c', toolset: 'local-only' } };
    await expect(all.run('skill:lookup', { q: 'x' }, confined)).rejects.toMatchObject({
      code: 'tool_not_found',
      details: { step: 'later' },
    });
    expect(seen).toEqual([{ identity: 'c', toolset: 'local-only' }]);
  });

  it('forwards per-step progress through the pipeline', async () => {
    const { all, connectRemote } = setup();
    connectRemote();
    const updates: ProgressUpdate[] = [];
    await all.run(
      'skill:lookup',
      { q: 'x' },
      { caller: { identity: 't' }, progress: (u) => updates.push(u) },
    );
    expect(updates.map((u) => [u.progress, u.total, u.message])).toEqual([
      [0, 2, 'step 1/2: find (local:find)'],
      [1, 2, 'step 2/2: later (remote:fetch)'],
      [2, 2, 'done'],
    ]);
  });

  it('lists, finds and describes the skills a scope can see', () => {
    const { skills, all, catalog } = setup();
    const hidden = new ToolScope(
      {
        catalog,
        search: new ToolSearch(catalog),
        pipeline: new RunPipeline({ catalog, validator }),
        maxChainSteps: 1,
      },
      { isVisible: (t) => t.namespace !== 'skill' },
    );
    expect(skills.visibleIn(all).map((s) => s.name)).toEqual(['lookup']);
    expect(skills.visibleIn(hidden)).toEqual([]);
    expect(() => skills.find('lookup', hidden)).toThrow('No skill "lookup"; list_skills lists the skills');
    expect(() => skills.find('nope', all)).toThrow(GatewayError);
    const described = skills.describe(skills.find('lookup', all));
    expect(described).toMatchObject({
      name: 'lookup',
      tool_id: 'skill:lookup',
      steps: [
        { id: 'find', tool: 'local:find', args: { q: '${{ inputs.q }}' }, dependsOn: [] },
        {
          id: 'later',
          tool: 'remote:fetch',
          args: { id: '${{ steps.find.result.id }}' },
          dependsOn: ['find'],
        },
      ],
      output: { id: '${{ steps.find.result.id }}', body: '${{ steps.later.result.body }}' },
      limits: { timeoutMs: 5000, maxToolCalls: 50 },
    });
  });

  it('refuses two skills with one name (config_invalid)', () => {
    const catalog = new Catalog();
    const make = () =>
      new SkillCatalog({
        catalog,
        skills: [definitions[0] as SkillDefinition, definitions[0] as SkillDefinition],
        scopeFor: () => {
          throw new Error('unused');
        },
        validator,
      });
    expect(make).toThrow('skills[1].name: duplicate skill "lookup"');
  });

  it('an output object with a `content` key stays structured content', async () => {
    const catalog = new Catalog();
    catalog.replaceSource('local', [makeEntry(makeTool('local:find'), async () => ({ id: 1 }))]);
    const pipeline = new RunPipeline({ catalog, validator });
    const scope = new ToolScope({ catalog, search: new ToolSearch(catalog), pipeline, maxChainSteps: 1 });
    const skills = new SkillCatalog({
      catalog,
      skills: [
        {
          name: 'wrap',
          description: 'wraps',
          steps: [{ id: 'a', tool: 'local:find' }],
          output: { content: ['${{ steps.a.result.id }}'] },
        },
      ],
      scopeFor: () => scope,
      validator,
    });
    skills.attach();
    const result = await scope.run('skill:wrap', {}, { caller: { identity: 't' } });
    expect(result.structuredContent).toEqual({ content: [1] });
    expect(result.content).toEqual([{ type: 'text', text: '{"content":[1]}' }]);
  });
});

describe('SkillCatalog.replace (a config reload)', () => {
  const echo: SkillDefinition = {
    name: 'echo',
    description: 'Find, then give the id back',
    steps: [{ id: 'find', tool: 'local:find', args: { q: 'x' } }],
    output: '${{ steps.find.result.id }}',
  };

  it('adds, removes and changes skill tools; an unchanged skill keeps its entry', () => {
    const { catalog, skills } = setup();
    const lookup = catalog.get('skill:lookup');
    skills.replace([definitions[0] as SkillDefinition, echo]);
    catalog.flush();
    expect(catalog.get('skill:lookup')).toBe(lookup);
    expect(catalog.get('skill:echo')?.tool.description).toBe('Find, then give the id back');
    expect(skills.get('echo')?.name).toBe('echo');

    skills.replace([{ ...echo, description: 'Changed' }]);
    catalog.flush();
    expect(catalog.get('skill:lookup')).toBeUndefined();
    expect(skills.get('lookup')).toBeUndefined();
    expect(catalog.get('skill:echo')?.tool.description).toBe('Changed');

    skills.replace([]);
    catalog.flush();
    expect(catalog.get('skill:echo')).toBeUndefined();
    expect(skills.size).toBe(0);
  });

  it('runs the new definition of a changed skill', async () => {
    const { skills, all } = setup();
    const call = { caller: { identity: 't' } };
    skills.replace([echo]);
    expect(JSON.stringify(await all.run('skill:echo', {}, call))).toContain('id-x');
    skills.replace([{ ...echo, steps: [{ id: 'find', tool: 'local:find', args: { q: 'y' } }] }]);
    expect(JSON.stringify(await all.run('skill:echo', {}, call))).toContain('id-y');
  });
});
