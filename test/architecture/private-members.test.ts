import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A dependency's private members (`_requestHandlers`, `Module._resolveFilename`) are reached from
 * one adapter file per dependency, never elsewhere: an update that changes them then breaks one
 * file, whose canary test (next to it) says so. By convention a library's private members are the
 * ones named with a leading underscore (TypeScript `private`, or Node's `Module._…`).
 */
const ADAPTERS: Record<string, string> = {
  'surfaces/mcp/sdk-internals.ts': 'the MCP SDK',
  'sources/local/node-module-internals.ts': "Node's Module",
};

/** Underscore names that are protocol fields, not anyone's private members (MCP's `_meta`). */
const PROTOCOL_FIELDS = new Set(['_meta']);

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The adapter a file is, or is the canary test of. */
function adapterOf(rel: string): string | undefined {
  return ADAPTERS[rel.replace(/\.test\.ts$/, '.ts')];
}

/** The text without comments (a comment may name a private member; only code reaches one). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** Underscore members the project declares on its own classes (`private _version`). */
function ownMembers(texts: Iterable<string>): Set<string> {
  const own = new Set<string>();
  const declaration = /\b(?:private|protected|public|readonly|static)\s+(?:readonly\s+)?(_[A-Za-z]\w*)/g;
  for (const text of texts) for (const match of text.matchAll(declaration)) if (match[1]) own.add(match[1]);
  return own;
}

/**
 * `file: name` for every reach into an underscore member outside the adapters: `x._name`,
 * `x['_name']`, and a cast to a shape naming it (`as unknown as { _name: … }`).
 */
function privateReaches(files: Record<string, string>): string[] {
  const own = ownMembers(Object.values(files).map(code));
  const reach =
    /\.\s*(_[A-Za-z]\w*)|\[\s*['"`](_[A-Za-z]\w*)['"`]\s*\]|as\s+unknown\s+as\s+\{[^}]*?\b(_[A-Za-z]\w*)\??\s*:/g;
  const found: string[] = [];
  for (const [rel, text] of Object.entries(files)) {
    if (adapterOf(rel)) continue;
    for (const match of code(text).matchAll(reach)) {
      const name = match[1] ?? match[2] ?? match[3];
      if (!name || own.has(name) || PROTOCOL_FIELDS.has(name)) continue;
      found.push(`${rel}: ${name}`);
    }
  }
  return found;
}

describe('private members of dependencies', () => {
  it('are reached only from their adapter files', () => {
    const files = Object.fromEntries(
      sourceFiles(SRC).map((file) => [
        path.relative(SRC, file).split(path.sep).join('/'),
        readFileSync(file, 'utf8'),
      ]),
    );
    expect(Object.keys(files).length).toBeGreaterThan(10);
    expect(privateReaches(files)).toEqual([]);
  });

  it('every adapter exists and has a canary test', () => {
    const files = new Set(sourceFiles(SRC).map((file) => path.relative(SRC, file).split(path.sep).join('/')));
    for (const adapter of Object.keys(ADAPTERS)) {
      expect(files.has(adapter), adapter).toBe(true);
      expect(files.has(adapter.replace(/\.ts$/, '.test.ts')), `${adapter}'s canary`).toBe(true);
    }
  });

  it('the check catches each way of reaching one (it can fail)', () => {
    const found = privateReaches({
      'surfaces/mcp/a.ts':
        'const h = (server as unknown as { _requestHandlers?: Map<string, F> })._requestHandlers;',
      'sources/local/b.ts': "Module['_resolveFilename'] = wrap;",
      'sources/mcp/c.ts': 'const child = transport._process; // a comment naming x._other is fine',
      'catalog/d.ts': 'class C { private _version = 0; bump() { this._version++; } }',
      'foundation/e.ts': 'entry._meta = meta; /* o._hidden */',
      'surfaces/mcp/sdk-internals.ts':
        'const t = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;',
    });
    expect(found).toEqual([
      'surfaces/mcp/a.ts: _requestHandlers',
      'surfaces/mcp/a.ts: _requestHandlers',
      'sources/local/b.ts: _resolveFilename',
      'sources/mcp/c.ts: _process',
    ]);
  });
});
