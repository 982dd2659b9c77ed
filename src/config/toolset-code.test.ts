import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configPartsOf, diffToolsets, toolsetFromConfig, withToolset } from './toolset-code.js';

const RAW = {
  toolsets: [{ name: 'ops', tools: ['ops:*'], namespaces: ['mon'], exclude: ['ops:drop'] }],
  overrides: [
    { '*': { tags: ['all'] }, 'ops:restart': { description: 'one' }, 'ops:drop': { hidden: true } },
    'more-overrides.yaml',
    { 'ops:restart': { tags: ['later'] }, mon: { tags: ['m'] }, other: { tags: ['o'] } },
  ],
  exposure: { pinned: ['mon:*', 'other:x', 'ops:drop'] },
  skills: [
    { name: 'b', description: 'd', steps: [{ id: 's', tool: 'mon:read' }] },
    { name: 'a', description: 'd', steps: [{ id: 's', tool: 'other:x' }] },
    { name: 'c', description: 'd', steps: [] },
  ],
};

describe('toolset code', () => {
  it('takes the rules, pins and skills its selectors by id cover; later list entries merge over earlier ones', () => {
    const bundle = toolsetFromConfig(RAW, 'ops');
    expect(bundle.overrides).toEqual({
      mon: { tags: ['m'] },
      'ops:restart': { description: 'one', tags: ['later'] },
    });
    expect(bundle.pinned).toEqual(['mon:*']);
    expect(bundle.skills.map((skill) => skill.name)).toEqual(['b']);
  });

  it('merges into a list-form overrides and a JSON config; diff then shows nothing', () => {
    const bundle = toolsetFromConfig(RAW, 'ops');
    const yaml = withToolset(
      '# keep\noverrides:\n  - { "ops:restart": { hidden: true } }\n  - x.yaml\n',
      'c.yaml',
      bundle,
    );
    expect(yaml).toContain('# keep');
    const parsed = parse(yaml) as Record<string, unknown>;
    expect(parsed.overrides).toEqual([{}, 'x.yaml', bundle.overrides]);
    expect(diffToolsets(configPartsOf(parsed, 'ops'), bundle)).toEqual([]);
    const json = JSON.parse(withToolset('{"exposure":"flat"}', 'c.json', bundle)) as Record<string, unknown>;
    expect(json.exposure).toEqual({ mode: 'flat', pinned: ['mon:*'] });
    expect(diffToolsets(configPartsOf(json, 'ops'), bundle)).toEqual([]);
    expect(diffToolsets(configPartsOf({}, 'ops'), bundle)).toEqual([
      '+ toolset ops (new)',
      '+ override: mon',
      '+ override: ops:restart',
      '+ pinned: mon:*',
      '+ skill: b',
    ]);
  });
});
