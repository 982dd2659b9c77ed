import { describe, expect, it } from 'vitest';
import { makeEntry, makeTool } from '../../test/support/test-tools.js';
import type { Logger } from '../foundation/ports/logger.js';
import { attachSource } from './attach-source.js';
import { Catalog } from './catalog.js';
import type { Source } from './source.js';

/** A tool of source `s` whose name a downstream server chose. */
const named = (name: string) => makeEntry(makeTool(`s:${name}`, { name }));

describe('Catalog: tools whose names hold control, invisible or bidirectional characters', () => {
  it('refuses only those tools, naming them escaped; the rest of the source serves', () => {
    const catalog = new Catalog({ debounceMs: 0 });
    const refused = catalog.replaceSource('s', [
      named('echo'),
      named('evil\u001b[2J'),
      named('zero\u200bwidth'),
      named('rtl\u202eexe'),
    ]);
    expect(refused).toEqual(['s:evil\u001b[2J', 's:zero\u200bwidth', 's:rtl\u202eexe']);
    expect(catalog.tools().map((t) => t.id)).toEqual(['s:echo']);
    const problem = catalog.unusableName('s:evil\u001b[2J');
    expect(problem).toContain('"s:evil\\u001b[2J"');
    expect(problem).not.toContain('\u001b');
    expect(catalog.unusableName('s:echo')).toBeUndefined();
    expect(() => catalog.upsert('s', named('bad\u0007'))).toThrow(/Unusable tool name/);
  });

  it('is warned about once by the source attachment, not on every re-listing', async () => {
    const catalog = new Catalog({ debounceMs: 0 });
    const warnings: { obj: Record<string, unknown>; msg: string | undefined }[] = [];
    const log: Logger = {
      debug() {},
      info() {},
      warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }),
      error() {},
      child: () => log,
    };
    const source = {
      id: 's',
      start: async (publish: (entries: ReturnType<typeof named>[]) => string[]) => {
        for (let i = 0; i < 3; i++) publish([named('echo'), named('evil\u009b31m')]);
      },
    } as unknown as Source;
    await attachSource(catalog, source, log);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toMatch(/control, invisible or bidirectional/);
    expect(JSON.stringify(warnings[0]?.obj.refused)).toContain('evil\\\\u009b31m');
  });
});
