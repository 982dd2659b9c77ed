import { describe, expect, it } from 'vitest';
import { configSchema } from './config-schema.js';

describe('the trust config section', () => {
  it('defaults to warn with nothing pinned', () => {
    expect(configSchema.parse({}).trust).toEqual({ mode: 'warn', pinned: {}, maxDescriptionChars: 8000 });
  });

  it('names the bad key and says what is expected', () => {
    const issues = (value: unknown) =>
      configSchema.safeParse({ trust: value }).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ mode: 'strict' })).toEqual(['trust.mode: must be "off", "warn" or "quarantine"']);
    expect(issues({ pinned: { 'srv:echo': 'abc' } })).toEqual([
      'trust.pinned.srv:echo: must be a fingerprint "sha256:" and 64 hex digits',
    ]);
    expect(issues({ pinned: { echo: `sha256:${'0'.repeat(64)}` } })?.[0]).toMatch(/^trust\.pinned\.echo: /);
    expect(issues({ quarantine: true })?.[0]).toMatch(/^trust: .*quarantine/);
  });
});
