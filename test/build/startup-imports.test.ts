import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What the bundled CLI loads before it runs a command: `dist/cli/main.js` and the chunks it
 * imports statically. What only some configs or commands need stays in chunks imported when
 * used, so a stdio client's first `tools/list` does not wait for them (docs/PERFORMANCE.md).
 */
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli');

function staticGraph(entry: string): Map<string, string> {
  const files = new Map<string, string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    const text = readFileSync(path.join(CLI, file), 'utf8');
    files.set(file, text);
    // esbuild writes static imports of chunks as `import … from "./chunk.js"` or `import "./chunk.js"`.
    for (const match of text.matchAll(/^import (?:[^"']*? from )?"\.\/([^"]+\.js)";?$/gm)) {
      if (match[1]) pending.push(match[1]);
    }
  }
  return files;
}

describe('the CLI bundle at start-up', () => {
  it('loads neither the MCP client, ioredis, prom-client, the tokenizer, jose nor pako before a command runs', () => {
    expect(existsSync(path.join(CLI, 'main.js')), 'dist/cli/main.js is missing: run `npm run build`').toBe(
      true,
    );
    const graph = staticGraph('main.js');
    expect(graph.size).toBeGreaterThan(3);
    // esbuild marks where each bundled module starts with a `// node_modules/…` comment.
    const bundled = (pkg: string) =>
      [...graph].filter(([, text]) => text.includes(`// node_modules/${pkg}/`)).map(([file]) => file);
    // What the gateway needs to list the built-in catalog is there.
    expect(bundled('@modelcontextprotocol/server')).not.toEqual([]);
    // jose only verifies JWTs (auth.jwt), pako only encodes for plantuml:encode: both load on first use.
    for (const pkg of [
      '@modelcontextprotocol/client',
      'ioredis',
      'prom-client',
      'gpt-tokenizer',
      'jose',
      'pako',
    ]) {
      expect(bundled(pkg), pkg).toEqual([]);
    }
  });
});
