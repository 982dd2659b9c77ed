import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { lazySdkValidator } from '../../scripts/lazy-sdk-validator.mjs';

/**
 * The CLI bundle's lazy MCP SDK validator (`scripts/lazy-sdk-validator.mjs`): each SDK package's
 * validator, bundled as the CLI bundles it, loads no ajv until its first use, then validates as
 * the SDK's own does.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'aperture-lazy-validator-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Validator {
  getValidator(schema: object): (input: unknown) => { valid: boolean; errorMessage?: string };
}

async function bundled(pkg: 'server' | 'client'): Promise<{ code: string; Validator: new () => Validator }> {
  const entry = path.join(dir, `${pkg}-entry.mjs`);
  writeFileSync(entry, `export { DefaultJsonSchemaValidator } from '@modelcontextprotocol/${pkg}/_shims';\n`);
  const outfile = path.join(dir, `${pkg}.mjs`);
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    nodePaths: [path.join(root, 'node_modules')],
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    plugins: [lazySdkValidator],
    logLevel: 'silent',
  });
  expect(result.warnings).toEqual([]);
  const module = await import(pathToFileURL(outfile).href);
  return { code: readFileSync(outfile, 'utf8'), Validator: module.DefaultJsonSchemaValidator };
}

describe.each(['server', 'client'] as const)('the lazy validator of @modelcontextprotocol/%s', (pkg) => {
  it('evaluates ajv on the first validation only, and validates as the SDK does', async () => {
    const { code, Validator } = await bundled(pkg);
    // Unchanged, the SDK's validator module evaluates ajv at the top level of the bundle; here
    // ajv comes only inside the CommonJS build of the validator, wrapped to run when first required.
    expect(code).not.toMatch(/^var import_ajv = require_ajv\(\);$/m);
    expect(code).toMatch(/^var require_ajvProvider_[\w]+ = __commonJS\(/m);
    const validator = new Validator();
    const check = validator.getValidator({
      type: 'object',
      properties: { sum: { type: 'number' }, at: { type: 'string', format: 'date-time' } },
      required: ['sum'],
    });
    expect(check({ sum: 3, at: '2026-11-24T20:00:00Z' })).toMatchObject({ valid: true });
    const refused = check({ sum: 'three' });
    expect(refused.valid).toBe(false);
    expect(refused.errorMessage).toMatch(/must be number/);
    // Formats are checked, as with the SDK's own default.
    expect(check({ sum: 1, at: 'yesterday' }).valid).toBe(false);
  });
});
