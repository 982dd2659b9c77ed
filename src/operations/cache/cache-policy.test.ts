import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { isCacheable } from './cache-policy.js';

describe('isCacheable', () => {
  it('caches read-only or idempotent tools, nothing else', () => {
    expect(isCacheable(makeTool('a:b', { annotations: { readOnlyHint: true } }))).toBe(true);
    expect(isCacheable(makeTool('a:b', { annotations: { idempotentHint: true } }))).toBe(true);
    expect(isCacheable(makeTool('a:b'))).toBe(false);
    expect(
      isCacheable(makeTool('a:b', { annotations: { readOnlyHint: false, destructiveHint: true } })),
    ).toBe(false);
  });

  it('lets an override decide either way', () => {
    const readOnly = { annotations: { readOnlyHint: true } };
    expect(isCacheable(makeTool('a:b', { ...readOnly, metadata: { extra: { cache: false } } }))).toBe(false);
    expect(isCacheable(makeTool('a:b', { metadata: { extra: { cache: true } } }))).toBe(true);
    // Not a boolean: ignored.
    expect(isCacheable(makeTool('a:b', { metadata: { extra: { cache: 'yes' } } }))).toBe(false);
  });
});
