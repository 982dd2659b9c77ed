import { describe, expect, it } from 'vitest';
import { sandboxViolationOf } from './sandbox-violation.js';

describe('sandboxViolationOf', () => {
  it('tells refused writes and missing network apart, and ignores the rest', () => {
    expect(sandboxViolationOf("Error: EROFS: read-only file system, open '/srv/x'")?.kind).toBe('filesystem');
    expect(sandboxViolationOf('getaddrinfo EAI_AGAIN api.github.com')?.kind).toBe('network');
    expect(sandboxViolationOf('connect ENETUNREACH 1.2.3.4:443')?.hint).toMatch(/sandbox\.network\.allow/);
    expect(sandboxViolationOf('listening on stdio')).toBeUndefined();
  });
});
