import { describe, expect, it } from 'vitest';
import { stripTypes } from './strip-types.js';

describe('stripTypes', () => {
  it('removes types and keeps a body with top-level await and return', async () => {
    const js = await stripTypes(
      'interface A { n: number }\nconst a: A = await f() as A;\nenum E { X }\nreturn a.n satisfies number;',
    );
    expect(js).not.toMatch(/interface|: A|satisfies/);
    expect(js).toContain('await f()');
    expect(js).toContain('return a.n');
    expect(js).toMatch(/E2?\["X"\] = 0/);
  });

  it('reports syntax errors as invalid_request with the line and column in the user code', async () => {
    await expect(stripTypes('const a = 1;\nlet b: = 2;')).rejects.toMatchObject({
      code: 'invalid_request',
      details: { line: 2, column: 8 },
    });
  });
});
