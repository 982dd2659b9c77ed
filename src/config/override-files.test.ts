// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write ${env:…} references on purpose.
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failure, failureOf } from '../../test/support/expect-failure.js';
import { loadConfig, parseConfigValue } from './load-config.js';

describe('overrides from files and folders', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'aperture-overrides-')));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function load(config: string, env: NodeJS.ProcessEnv = {}) {
    await writeFile(join(dir, 'aperture.yaml'), config);
    return loadConfig({ file: 'aperture.yaml', cwd: dir, env });
  }

  it('a single path names a YAML file of rules, relative to the config file', async () => {
    await mkdir(join(dir, 'conf'));
    await writeFile(
      join(dir, 'conf', 'overrides.yaml'),
      '"gh:create_issue": { metadata: { category: dev, cost: 1 }, inputSchema: { properties: { body: { description: Markdown } } } }\n',
    );
    const { config, overrideFiles } = await load('overrides: ./conf/overrides.yaml\n');
    expect(config.overrides['gh:create_issue']).toEqual({
      metadata: { category: 'dev', cost: 1 },
      inputSchema: { properties: { body: { description: 'Markdown' } } },
    });
    expect(overrideFiles).toEqual([join(dir, 'conf', 'overrides.yaml')]);
  });

  it('a folder gives its YAML and JSON files in name order; inline entries beside them merge in list order', async () => {
    await mkdir(join(dir, 'overrides.d'));
    await writeFile(
      join(dir, 'overrides.d', '10-team.json'),
      JSON.stringify({ gh: { tags: ['team'], title: 'Team' } }),
    );
    await writeFile(
      join(dir, 'overrides.d', '00-base.yml'),
      'gh: { tags: [base], title: Base, description: "${env:DESC}" }\n',
    );
    await writeFile(join(dir, 'overrides.d', 'README.md'), 'not read');
    const { config, overrideFiles } = await load(
      'overrides:\n  - ./overrides.d\n  - { gh: { title: Inline }, "gh:x": { hidden: true } }\n',
      { DESC: 'from env' },
    );
    expect(config.overrides.gh).toEqual({ tags: ['base', 'team'], title: 'Inline', description: 'from env' });
    expect(config.overrides['gh:x']).toEqual({ hidden: true });
    expect(overrideFiles).toEqual([
      join(dir, 'overrides.d', '00-base.yml'),
      join(dir, 'overrides.d', '10-team.json'),
    ]);
  });

  it('a missing file is config_invalid naming the path', async () => {
    const error = await failure(load('overrides: [./nope.yaml]\n'));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('overrides[0]: no such file or folder: ./nope.yaml');
  });

  it('a bad rule in a file is config_invalid naming the key and the file', async () => {
    await writeFile(join(dir, 'o.yaml'), '"gh:x": { metadata: { cost: cheap } }\n');
    const error = await failure(load('overrides: [{ gh: { title: T } }, ./o.yaml]\n'));
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('overrides[1] (file o.yaml)["gh:x"].metadata.cost');
  });

  it('a file that is not a mapping, or a folder without override files, is config_invalid', async () => {
    await writeFile(join(dir, 'list.yaml'), '- a\n- b\n');
    expect((await failure(load('overrides: ./list.yaml\n'))).message).toMatch(
      /overrides file list\.yaml: must be a mapping/,
    );
    await mkdir(join(dir, 'empty'));
    expect((await failure(load('overrides: ./empty\n'))).message).toContain(
      'holds no .yaml, .yml or .json files',
    );
  });

  it('a path in a config parsed from a value (no file to be relative to) is refused, not ignored', () => {
    for (const overrides of [['./o.yaml'], './o.yaml']) {
      const error = failureOf(() => parseConfigValue({ overrides }));
      expect(error.code).toBe('config_invalid');
      expect(error.message).toContain(
        'the overrides file "./o.yaml" can only be read when the config is loaded from a file',
      );
    }
  });
});

describe('schema patches in overrides', () => {
  it('may not change or remove the root type (MCP tool schemas are objects)', () => {
    for (const type of ['string', null]) {
      const error = failureOf(() => parseConfigValue({ overrides: { 'a:b': { inputSchema: { type } } } }));
      expect(error.message).toContain('overrides["a:b"].inputSchema: a patch may not change the root "type"');
    }
    const output = failureOf(() =>
      parseConfigValue({ overrides: { a: { outputSchema: { type: 'array' } } } }),
    );
    expect(output.details?.path).toBe('overrides.a.outputSchema');
    expect(
      parseConfigValue({ overrides: { a: { inputSchema: { type: 'object', properties: { x: null } } } } })
        .config.overrides.a,
    ).toEqual({ inputSchema: { type: 'object', properties: { x: null } } });
  });

  it('must be valid JSON Schema once its deletions are left out: a typo is refused at load, not at every call', () => {
    const error = failureOf(() =>
      parseConfigValue({
        overrides: { 'a:b': { inputSchema: { properties: { limit: { type: 'integr' }, x: null } } } },
      }),
    );
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain(
      'overrides["a:b"].inputSchema: not a valid JSON Schema patch: schema/properties/limit/type',
    );
  });
});
