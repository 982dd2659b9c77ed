#!/usr/bin/env node
/**
 * Builds the documentation site (`npm run docs`) with `vitepress build docs`, which fails on a dead
 * link (test/docs/site-links.test.ts checks the anchors in what it built, with scripts/docs-links.ts). Any warning it prints fails the build too
 * (a language without a grammar, a page Vue cannot compile cleanly, an oversized chunk…): the site
 * builds in CI with none.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const vitepress = path.join(root, 'node_modules', 'vitepress', 'bin', 'vitepress.js');

/** Lines of the build's output that are warnings. */
export function warningsIn(output) {
  return output.split('\n').filter((line) => /\bwarn(ing)?\b|falling back|\(!\)|dead link/i.test(line));
}

const started = performance.now();
const child = spawn(process.execPath, [vitepress, 'build', 'docs'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
for (const stream of [child.stdout, child.stderr]) {
  stream.on('data', (chunk) => {
    output += chunk;
    process.stderr.write(chunk);
  });
}
const code = await new Promise((resolve) => child.on('close', resolve));
const warnings = warningsIn(output);
if (code !== 0) process.exit(code ?? 1);
if (warnings.length > 0) {
  process.stderr.write(
    `\nthe docs build printed ${warnings.length} warning(s); it must print none:\n${warnings.join('\n')}\n`,
  );
  process.exit(1);
}
process.stderr.write(`docs built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
