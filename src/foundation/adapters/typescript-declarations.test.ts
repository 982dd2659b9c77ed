import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { schemaToTypeScript } from './json-schema-to-typescript.js';
import { toTypeScriptDeclarations } from './typescript-declarations.js';

const exec = promisify(execFile);
const TSC = path.resolve(import.meta.dirname, '../../../node_modules/typescript/bin/tsc');

const encode = makeTool('plantuml:encode', {
  description: 'Encode a diagram.',
  inputSchema: {
    type: 'object',
    properties: {
      source: { type: 'string', description: 'The diagram text.' },
      format: { type: 'string', enum: ['svg', 'png', 'txt'], default: 'svg' },
    },
    required: ['source'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { url: { type: 'string' }, encoded: { type: 'string' } },
    required: ['url', 'encoded'],
  },
});
const odd = makeTool('my-ns:do.thing', {
  inputSchema: {
    type: 'object',
    properties: {
      items: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } },
      'odd key': { type: ['string', 'null'] },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
      node: { $ref: '#/$defs/node' },
    },
    $defs: { node: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } },
  },
});

describe('schemaToTypeScript', () => {
  it('renders the keywords tool schemas use', () => {
    expect(schemaToTypeScript({ type: 'string' })).toBe('string');
    expect(schemaToTypeScript({ enum: ['a', 1, null] })).toBe('"a" | 1 | null');
    expect(schemaToTypeScript({ type: 'array', items: { type: 'integer' } })).toBe('number[]');
    expect(schemaToTypeScript({ type: ['string', 'null'] })).toBe('string | null');
    expect(schemaToTypeScript({ type: 'array', prefixItems: [{ type: 'string' }, { const: 2 }] })).toBe(
      '[string, 2]',
    );
    expect(schemaToTypeScript({ type: 'object' })).toBe('Record<string, unknown>');
    expect(
      schemaToTypeScript({
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } } },
        ],
      }),
    ).toBe('{\n  a: string;\n} & {\n  b?: number;\n}');
    expect(schemaToTypeScript({ not: {} })).toBe('unknown');
  });

  it('stops at the depth limit instead of recursing forever', () => {
    const loop = { type: 'object', properties: { next: { $ref: '#' } } };
    expect(schemaToTypeScript(loop, { maxDepth: 3 })).toContain('unknown');
  });
});

describe('toTypeScriptDeclarations', () => {
  it('declares typed proxies that TypeScript accepts for good calls and rejects for bad ones', async () => {
    const declarations = toTypeScriptDeclarations([encode, odd]);
    expect(declarations).toContain('plantuml: {');
    expect(declarations).toContain('"my-ns": {');
    expect(declarations).toContain('"do.thing"(args?:');
    expect(declarations).toContain('/** The diagram text. */');

    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-decl-'));
    const file = path.join(dir, 'program.ts');
    await writeFile(
      file,
      `${declarations}
export async function main() {
  const r = await tools.plantuml.encode({ source: 'A -> B', format: 'png' });
  const url: string = r.url;
  await tools['my-ns']['do.thing']({ items: ['a', 1], 'odd key': null, tags: { a: 'b' }, node: { id: 1 } });
  await tools.call('plantuml:encode', { source: 'x' });
  // @ts-expect-error: source is required
  await tools.plantuml.encode({ format: 'svg' });
  // @ts-expect-error: format is an enum
  await tools.plantuml.encode({ source: 'x', format: 'gif' });
  // @ts-expect-error: no such property in the result
  r.nope;
  return url;
}
`,
    );
    const result = await exec(process.execPath, [
      TSC,
      '--ignoreConfig',
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--lib',
      'es2022',
      '--types',
      '',
      file,
    ]).then(
      () => ({ ok: true, out: '' }),
      (e: { stdout: string }) => ({ ok: false, out: e.stdout }),
    );
    expect(result.out).toBe('');
    expect(result.ok).toBe(true);
  });
});
