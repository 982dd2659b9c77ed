import { describe, expect, it } from 'vitest';
import { idMatcher } from '../../src/composition/toolsets/toolset-predicate.js';
import { globMatcher } from '../../src/foundation/schema/glob-matcher.js';
import { OperationFilter } from '../../src/sources/openapi/operation-filter.js';

// Regression: globs were compiled to backtracking RegExps (`^.*a.*a…b$`): seven `*`s against a
// 40-character id took five seconds of the event loop. Every glob now matches in linear time.
const GLOB = '*a*a*a*a*a*a*a*b';
const ID = 'a'.repeat(40);

function timed(run: () => boolean): { result: boolean; ms: number } {
  const started = performance.now();
  const result = run();
  return { result, ms: performance.now() - started };
}

describe('operator globs run in bounded time', () => {
  it('rate-limit and policy globs (globMatcher)', () => {
    const { result, ms } = timed(() => globMatcher(GLOB)(ID));
    expect(result).toBe(false);
    expect(ms).toBeLessThan(200);
    expect(globMatcher('github:*')('github:repos/list')).toBe(true);
  });

  it('OpenAPI include / exclude patterns', () => {
    const filter = new OperationFilter([GLOB]);
    const { result, ms } = timed(() =>
      filter.accepts({ method: 'get', path: `/${ID}`, operation: { operationId: ID } }),
    );
    expect(result).toBe(false);
    expect(ms).toBeLessThan(200);
    expect(
      new OperationFilter(['get /pets/*']).accepts({ method: 'get', path: '/pets/{id}', operation: {} }),
    ).toBe(true);
  });

  it('toolset tool globs (picomatch syntax)', () => {
    const { result, ms } = timed(() => idMatcher([GLOB])?.(ID) ?? true);
    expect(result).toBe(false);
    expect(ms).toBeLessThan(200);
    const match = idMatcher(['github:*', 'fs:{read,write}_*', 'x:a?c']);
    expect(['github:repos/list', 'fs:read_file', 'x:abc', 'fs:delete_file'].map((id) => match?.(id))).toEqual(
      [true, true, true, false],
    );
  });
});
