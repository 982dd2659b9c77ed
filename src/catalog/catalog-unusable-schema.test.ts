import { describe, expect, it, vi } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import type { Logger } from '../foundation/ports/logger.js';
import { attachSource } from './attach-source.js';
import { Catalog } from './catalog.js';
import { InMemorySource } from './in-memory-source.js';

// A pattern the linear-time engine cannot run: the tool is refused when it arrives, not on a call.
const backreference = makeTool('s:echo', {
  inputSchema: { type: 'object', properties: { word: { type: 'string', pattern: '^(a)\\1$' } } },
});
const lookahead = makeTool('s:shout', {
  outputSchema: { type: 'object', patternProperties: { '^(?=x)': {} } },
});

describe('Catalog: a tool whose schema pattern needs backtracking is refused on arrival', () => {
  it('refuses that tool, names it and the pattern, and keeps the rest of the source', () => {
    const catalog = new Catalog();
    const refused = catalog.replaceSource('s', [
      makeEntry(backreference),
      makeEntry(lookahead),
      makeEntry(makeTool('s:fine', { inputSchema: { type: 'string', pattern: '^(a+)+$' } })),
    ]);
    expect(refused).toEqual(['s:echo', 's:shout']);
    expect(catalog.tools().map((t) => t.id)).toEqual(['s:fine']);
    expect(catalog.unusableSchema('s:echo')).toMatch(
      /^s:echo: \/inputSchema\/properties\/word\/pattern: pattern "\^\(a\)\\\\1\$" is not supported/,
    );
    expect(catalog.unusableSchema('s:shout')).toMatch(/^s:shout: \/outputSchema\/patternProperties: /);

    // Fixed by the server: the tool comes in, and the refusal is forgotten.
    catalog.replaceSource('s', [makeEntry(makeTool('s:echo'))]);
    expect(catalog.tools().map((t) => t.id)).toEqual(['s:echo']);
    expect(catalog.unusableSchema('s:echo')).toBeUndefined();
  });

  it('answers invalid_request naming the tool when it is upserted', () => {
    const catalog = new Catalog();
    expect(() => catalog.upsert('s', makeEntry(backreference))).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: expect.stringContaining('s:echo') }),
    );
    expect(catalog.size).toBe(0);
  });

  it('warns with the tools refused for their pattern, apart from id collisions', async () => {
    const catalog = new Catalog();
    const warn = vi.fn();
    const log = { warn, info: vi.fn(), debug: vi.fn(), error: vi.fn() } as unknown as Logger;
    await attachSource(
      catalog,
      new InMemorySource('s', 'mcp', [makeEntry(backreference), makeEntry(makeTool('s:ok'))]),
      log,
    );
    expect(catalog.tools().map((t) => t.id)).toEqual(['s:ok']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toEqual({ source: 's', refused: [expect.stringMatching(/^s:echo: /)] });
    expect(warn.mock.calls[0]?.[1]).toContain('schema pattern');
  });
});

/** A schema nesting `levels` object levels, each `{ type: object, properties: { a: … } }`. */
function deepSchema(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < levels; i++) schema = { type: 'object', properties: { a: schema } };
  return schema;
}

// Regression ("Hardening, round two"): one tool with a 3,000-level schema overflowed the stack
// of the pattern walk, and its whole server failed as `internal`.
describe('Catalog: a tool whose schema nests too deep is refused on arrival', () => {
  it('refuses only that tool, naming it, and keeps the rest of the source', () => {
    const catalog = new Catalog();
    const refused = catalog.replaceSource('s', [
      makeEntry(makeTool('s:deep', { inputSchema: deepSchema(3000) })),
      makeEntry(makeTool('s:deep_out', { outputSchema: deepSchema(200) })),
      makeEntry(makeTool('s:fine', { inputSchema: deepSchema(100) })),
    ]);
    expect(refused).toEqual(['s:deep', 's:deep_out']);
    expect(catalog.tools().map((t) => t.id)).toEqual(['s:fine']);
    expect(catalog.unusableSchema('s:deep')).toMatch(
      /^s:deep: \/inputSchema\/properties\/a\/.*: the schema nests deeper than 256 levels$/,
    );
    expect(catalog.unusableSchema('s:deep_out')).toMatch(/^s:deep_out: \/outputSchema\//);
    expect(() =>
      catalog.upsert('s', makeEntry(makeTool('s:deep2', { inputSchema: deepSchema(3000) }))),
    ).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: expect.stringContaining('s:deep2') }),
    );
  });
});
