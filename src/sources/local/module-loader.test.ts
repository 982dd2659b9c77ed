import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { loadToolModules } from './module-loader.js';

async function workspace(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-modules-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

async function loadError(patterns: string[], dir: string): Promise<GatewayError> {
  try {
    await loadToolModules(patterns, dir);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected loading to fail');
}

describe('loadToolModules', () => {
  it('loads plain-object tools from JS modules matched by a glob, and arrays of them', async () => {
    const dir = await workspace({
      'tools/a.mjs': `export const one = { name: 'one', description: 'One', inputSchema: { type: 'object' }, handler: () => 1 };
        export const notATool = { name: 'x' };
        export default [{ name: 'two', namespace: 'math', description: 'Two', inputSchema: { type: 'object' }, handler: () => 2 }];`,
      'tools/b.js': `export const three = { name: 'three', description: 'Three', inputSchema: { type: 'object' }, handler: () => 3 };`,
      'tools/readme.md': '# not code',
      'package.json': '{ "type": "module" }',
    });
    const loaded = await loadToolModules(['./tools/*'], dir);
    expect(loaded.map((m) => path.basename(m.file))).toEqual(['a.mjs', 'b.js']);
    expect(loaded.flatMap((m) => m.definitions.map((d) => `${d.namespace ?? 'local'}:${d.name}`))).toEqual([
      'local:one',
      'math:two',
      'local:three',
    ]);
  });

  it('loads TypeScript modules, with types, through tsx', async () => {
    const dir = await workspace({
      'typed.ts': `interface Args { n: number }
        export const double = { name: 'double', description: 'Doubles', inputSchema: { type: 'object' },
          handler: (args: Args): number => args.n * 2 };`,
    });
    const [module] = await loadToolModules(['typed.ts'], dir);
    const def = module?.definitions[0];
    expect(def?.name).toBe('double');
    expect(def?.handler({ n: 21 }, {} as never)).toBe(42);
  });

  it('resolves `aperture-gateway` and `zod` for a module outside the package, with no node_modules', async () => {
    const dir = await workspace({
      'weather.ts': `import { defineTool } from 'aperture-gateway';
        import { z } from 'zod';
        export const forecast = defineTool({
          namespace: 'weather', name: 'forecast', description: 'Forecast.',
          inputSchema: z.object({ city: z.string(), days: z.number().int().default(3) }),
          handler: async ({ city, days }) => ({ city, days }),
        });`,
    });
    expect(path.relative(process.cwd(), dir).startsWith('..')).toBe(true);
    // (A plain .mjs module is imported natively, which vitest's own module runner stands in for
    // here: test/e2e/own-tools.test.ts covers it through the built CLI.)
    const loaded = await loadToolModules(['weather.ts'], dir);
    const forecast = loaded[0]?.definitions[0];
    expect(forecast?.name).toBe('forecast');
    expect(forecast?.inputSchema).toMatchObject({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', default: 3 } },
      required: ['city'],
    });
  });

  it('refuses a pattern that matches nothing, naming it', async () => {
    const dir = await workspace({});
    const error = await loadError(['./missing/*.ts'], dir);
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('./missing/*.ts');
  });

  it('refuses a module that fails to load, naming the file', async () => {
    const dir = await workspace({ 'broken.mjs': 'export const = ;' });
    const error = await loadError(['broken.mjs'], dir);
    expect(error.code).toBe('config_invalid');
    expect(error.message).toContain('broken.mjs');
  });

  it('refuses a malformed tool definition, naming the file and the export', async () => {
    const dir = await workspace({
      'bad.mjs': `export const bad = { name: 'bad', description: 'Bad', inputSchema: { type: 'string' }, handler: () => 1 };`,
    });
    const error = await loadError(['bad.mjs'], dir);
    expect(error.message).toContain('bad.mjs');
    expect(error.message).toContain('"bad"');
    expect(error.message).toContain('type: "object"');
  });
});
