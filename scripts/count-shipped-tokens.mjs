#!/usr/bin/env node
/**
 * Counts the texts the package ships (the built-in catalog's listing as exposure `auto` counts it,
 * `src/app/shipped-token-counts.ts`) with the tokenizer, once per encoding, into
 * `dist/token-counts.json`. The gateway looks a text up there before it loads the tokenizer's
 * tables, so a stdio client of the built-in catalog gets its first `tools/list` without them.
 * Run by `npm run build`, after `tsc`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const { shippedTokenCounts } = await import(path.join(dist, 'app', 'shipped-token-counts.js'));
const counts = await shippedTokenCounts();
writeFileSync(path.join(dist, 'token-counts.json'), `${JSON.stringify(counts)}\n`);
const entries = Object.values(counts).reduce((sum, table) => sum + Object.keys(table).length, 0);
process.stderr.write(`counted the shipped texts' tokens: ${entries} entries in dist/token-counts.json\n`);
