import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without declarations
import { jsonAsParse } from '../../scripts/json-as-parse.mjs';

/**
 * The CLI bundle's JSON loader (`scripts/json-as-parse.mjs`): the gateway's own JSON modules
 * become `JSON.parse` of a string, with the same value; other JSON is bundled as esbuild does.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'aperture-json-as-parse-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function bundle(name: string, json: string): Promise<{ code: string; outfile: string }> {
  const distDir = path.join(dir, name, 'dist');
  mkdirSync(distDir, { recursive: true });
  writeFileSync(path.join(distDir, 'data.json'), json);
  const entry = path.join(distDir, 'entry.mjs');
  writeFileSync(entry, "import data from './data.json' with { type: 'json' };\nexport default data;\n");
  return bundleEntry(entry, path.join(dir, name, 'out.mjs'));
}

/** Bundles `entry` into `outfile` as the CLI bundle does, with the plugin. */
async function bundleEntry(entry: string, outfile: string): Promise<{ code: string; outfile: string }> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    plugins: [jsonAsParse],
    logLevel: 'silent',
  });
  return { code: readFileSync(outfile, 'utf8'), outfile };
}

describe('the json-as-parse bundle plugin', () => {
  it('bundles a dist/ JSON module as JSON.parse of a string, with the same value', async () => {
    const value = { buckets: 4, weights: { '1': 0.5, '3': -0.25 }, words: ['a"b', 'ü\n'], none: null };
    const { code, outfile } = await bundle('ok', JSON.stringify(value, null, 2));
    expect(code).toMatch(/JSON\.parse\(/);
    expect(code).not.toMatch(/buckets: 4/);
    const module = await import(pathToFileURL(outfile).href);
    expect(module.default).toEqual(value);
  });

  it('fails the build on malformed JSON rather than the gateway at start', async () => {
    await expect(bundle('bad', '{"weights": {')).rejects.toThrow(/JSON/);
  });

  it("leaves a package's JSON as esbuild bundles it: CommonJS that requires it gets the object", async () => {
    // ajv requires its meta-schemas from node_modules/ajv/dist/refs/*.json: given a module with a
    // default export instead, it saw a schema without an id and refused the second one.
    const pkg = path.join(dir, 'pkg', 'node_modules', 'fake', 'dist');
    mkdirSync(pkg, { recursive: true });
    const meta = { $id: 'http://example.com/meta', type: 'object' };
    writeFileSync(path.join(pkg, 'meta.json'), JSON.stringify(meta));
    writeFileSync(path.join(pkg, 'index.cjs'), "module.exports = require('./meta.json');\n");
    const entry = path.join(dir, 'pkg', 'entry.mjs');
    writeFileSync(entry, "import meta from './node_modules/fake/dist/index.cjs';\nexport default meta;\n");
    const { code, outfile } = await bundleEntry(entry, path.join(dir, 'pkg', 'out.mjs'));
    const module = await import(pathToFileURL(outfile).href);
    expect(module.default).toEqual(meta);
    expect(code).not.toMatch(/JSON\.parse\(/);
  });

  it('turns the real intent model into an equal value', async () => {
    const text = readFileSync(path.join(root, 'src/catalog/trust/intent-model.json'), 'utf8');
    const { outfile } = await bundle('model', text);
    const module = await import(pathToFileURL(outfile).href);
    expect(module.default).toEqual(JSON.parse(text));
  });
});
