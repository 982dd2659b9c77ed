import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertToolsetReferences } from '../../src/config/access-schema.js';
import { stripJsonComments } from '../../src/config/client-config-files.js';
import { configJsonSchema } from '../../src/config/config-json-schema.js';
import { loadConfig } from '../../src/config/load-config.js';
import { toolsetWarnings } from '../../src/config/toolset-lint.js';

/*
 * Every YAML / JSON block of the README, and of every page of the documentation site (docs/**.md,
 * the generated reference pages' examples included), is a config a reader will paste: each must pass what
 * `aperture config validate` checks (loadConfig + toolset references), with an empty environment,
 * and the published JSON Schema. The default is strict. An HTML comment right before a block
 * changes that:
 *   <!-- config: snippet -->          a deliberately partial block: parsed, not validated;
 *   <!-- config: not-aperture -->     another program's file (e.g. a client's): parsed only;
 *   <!-- config: needs A B -->        validated with variables A and B set (credentials, which a
 *                                     default would turn into a published key); it must fail
 *                                     without each of them.
 */

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020').default as typeof import('ajv').default;
const YAML = require('yaml') as typeof import('yaml');

const ROOT = join(import.meta.dirname, '..', '..');
const README = join(ROOT, 'README.md');

/** Every Markdown page of the documentation site: docs/**.md, not the site's build or cache. */
function docsPages(dir = join(ROOT, 'docs')): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== '.vitepress' && entry.name !== 'node_modules')
      found.push(...docsPages(path));
    else if (entry.isFile() && entry.name.endsWith('.md')) found.push(path);
  }
  return found.sort();
}

/** A value for a `needs` variable: distinct per name, long enough for every credential rule (API keys: 16+). */
const placeholder = (name: string) => `readme-placeholder-0123456789-${name}`;

interface Block {
  /** Where the block is, `README.md:12`, relative to the repository root. */
  where?: string;
  line: number;
  lang: 'yaml' | 'json';
  text: string;
  marker?: { kind: 'snippet' | 'not-aperture' | 'needs'; vars: string[] };
}

/** A closing fence: the opening fence's characters, at least as many, and nothing else (CommonMark). */
function closes(line: string, fence: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(fence) && /^(`+|~+)$/.test(trimmed);
}

/** The fenced yaml/yml/json blocks of a Markdown text, with the marker comment before each. */
function configBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(```+|~~~+)\s*(yaml|yml|json|jsonc)\b/i.exec(lines[i] ?? '');
    if (!open) {
      // Skip other fenced blocks whole, so their content is never taken for a fence.
      const other = /^\s*(```+|~~~+)/.exec(lines[i] ?? '');
      if (other) {
        const fence = other[1] ?? '```';
        for (i++; i < lines.length && !closes(lines[i] ?? '', fence); i++);
      }
      continue;
    }
    const fence = open[2] ?? '```';
    const lang = (open[3] ?? '').toLowerCase().startsWith('json') ? 'json' : 'yaml';
    let previous = i - 1;
    while (previous >= 0 && (lines[previous] ?? '').trim() === '') previous--;
    const comment = /^\s*<!--\s*config:\s*(snippet|not-aperture|needs)\b([^>]*)-->\s*$/.exec(
      lines[previous] ?? '',
    );
    const body: string[] = [];
    const start = i + 1;
    for (i++; i < lines.length && !closes(lines[i] ?? '', fence); i++) body.push(lines[i] ?? '');
    const marker = comment
      ? {
          kind: comment[1] as 'snippet' | 'not-aperture' | 'needs',
          vars: (comment[2] ?? '').trim().split(/\s+/).filter(Boolean),
        }
      : undefined;
    blocks.push({ line: start, lang, text: body.join('\n'), ...(marker ? { marker } : {}) });
  }
  return blocks;
}

const blocks = configBlocks(readFileSync(README, 'utf8'));
const docsBlocks = docsPages().flatMap((file) =>
  configBlocks(readFileSync(file, 'utf8')).map((block) => ({
    ...block,
    where: `${relative(ROOT, file)}:${block.line}`,
  })),
);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aperture-readme-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function validate(block: Block, env: Record<string, string>) {
  const file = join(
    dir,
    `block-${(block.where ?? `README.md:${block.line}`).replace(/[/:]/g, '-')}.${block.lang}`,
  );
  await writeFile(file, block.text);
  const loaded = await loadConfig({ file, cwd: dir, env });
  assertToolsetReferences(loaded.config, file);
  // `config validate` prints warnings; a README example should not cause any.
  expect([...loaded.warnings, ...(await toolsetWarnings(loaded.config))], block.text).toEqual([]);
  return loaded.config;
}

describe('README config blocks', () => {
  it('has config blocks to check, and finds blocks after other fenced blocks', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(configBlocks('```sh\n```yaml\n```\n<!-- config: needs A B -->\n\n```yml\nx: 1\n```\n')).toEqual([
      { line: 6, lang: 'yaml', text: 'x: 1', marker: { kind: 'needs', vars: ['A', 'B'] } },
    ]);
  });

  it.each(blocks.map((block) => [block.line, block] as const))(
    'block at README.md:%i parses',
    (_line, block) => {
      const value =
        block.lang === 'json'
          ? JSON.parse(stripJsonComments(block.text))
          : YAML.parse(block.text, { uniqueKeys: true });
      expect(typeof value === 'object' && value !== null).toBe(true);
    },
  );

  const validated = blocks.filter((block) => block.marker === undefined || block.marker.kind === 'needs');
  it.each(validated.map((block) => [block.line, block] as const))(
    'block at README.md:%i passes `aperture config validate` with an empty environment',
    async (_line, block) => {
      const vars = block.marker?.vars ?? [];
      await validate(block, Object.fromEntries(vars.map((name) => [name, placeholder(name)])));
      // A `needs` marker must be true: the block fails without each variable it names.
      for (const name of vars) {
        const others = Object.fromEntries(vars.filter((v) => v !== name).map((v) => [v, placeholder(v)]));
        await expect(validate(block, others), `without ${name}`).rejects.toMatchObject({
          code: 'config_invalid',
        });
      }
    },
  );

  it.each(validated.map((block) => [block.line, block] as const))(
    'block at README.md:%i is valid under the published JSON Schema',
    (_line, block) => {
      const ajv = new Ajv2020({ allErrors: true, strict: false });
      const check = ajv.compile(configJsonSchema());
      const value =
        block.lang === 'json' ? JSON.parse(stripJsonComments(block.text)) : YAML.parse(block.text);
      const valid = check(value);
      expect(check.errors ?? [], ajv.errorsText(check.errors)).toEqual([]);
      expect(valid).toBe(true);
    },
  );
});

/** The published JSON Schema, compiled once for the many blocks of the site. */
const publishedSchema = (() => {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  return { ajv, check: ajv.compile(configJsonSchema()) };
})();

describe('documentation site config blocks', () => {
  it('finds config blocks in the guides and the reference pages', () => {
    expect(
      docsBlocks.filter((block) => block.where?.startsWith('docs/guide/')).length,
    ).toBeGreaterThanOrEqual(10);
    expect(
      docsBlocks.filter((block) => block.where?.startsWith('docs/reference/config.md')).length,
    ).toBeGreaterThanOrEqual(10);
  });

  it.each(docsBlocks.map((block) => [block.where, block] as const))('block at %s parses', (_where, block) => {
    const value =
      block.lang === 'json'
        ? JSON.parse(stripJsonComments(block.text))
        : YAML.parse(block.text, { uniqueKeys: true });
    expect(typeof value === 'object' && value !== null).toBe(true);
  });

  const validated = docsBlocks.filter((block) => block.marker === undefined || block.marker.kind === 'needs');
  it.each(validated.map((block) => [block.where, block] as const))(
    'block at %s passes `aperture config validate` and the published JSON Schema',
    async (_where, block) => {
      const vars = block.marker?.vars ?? [];
      await validate(block, Object.fromEntries(vars.map((name) => [name, placeholder(name)])));
      for (const name of vars) {
        const others = Object.fromEntries(vars.filter((v) => v !== name).map((v) => [v, placeholder(v)]));
        await expect(validate(block, others), `without ${name}`).rejects.toMatchObject({
          code: 'config_invalid',
        });
      }
      const value =
        block.lang === 'json' ? JSON.parse(stripJsonComments(block.text)) : YAML.parse(block.text);
      expect(publishedSchema.check(value), publishedSchema.ajv.errorsText(publishedSchema.check.errors)).toBe(
        true,
      );
    },
  );
});
