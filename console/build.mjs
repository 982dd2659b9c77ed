// Builds the web console into dist/console (run by `npm run build`): one ES module bundle with
// code splitting (pages loaded on demand), minified, no source fetched at run time.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const here = import.meta.dirname;
const out = path.resolve(here, '../dist/console');
// Chunk names carry a hash: a rebuild must not leave the previous build's chunks behind.
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
await build({
  entryPoints: [path.join(here, 'src/main.tsx')],
  bundle: true,
  splitting: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: out,
  entryNames: 'console',
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
copyFileSync(path.join(here, 'index.html'), path.join(out, 'index.html'));
copyFileSync(path.join(here, 'console.css'), path.join(out, 'console.css'));
copyFileSync(path.join(here, 'favicon.svg'), path.join(out, 'favicon.svg'));
// uPlot's stylesheet, linked by the activity charts when they are first drawn.
copyFileSync(path.join(here, '../node_modules/uplot/dist/uPlot.min.css'), path.join(out, 'uplot.css'));
