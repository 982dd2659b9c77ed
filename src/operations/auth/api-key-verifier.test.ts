import { describe, expect, it } from 'vitest';
import { ApiKeyVerifier } from './api-key-verifier.js';

const KEYS = [
  { name: 'ci', key: 'ci-key-0123456789abcdef' },
  { name: 'support', key: 'support-key-0123456789', toolsets: ['tickets'] },
];

describe('ApiKeyVerifier', () => {
  it('maps a configured key to its identity and toolsets', () => {
    const verifier = new ApiKeyVerifier(KEYS);
    expect(verifier.verify('ci-key-0123456789abcdef')).toEqual({ identity: 'ci', method: 'api_key' });
    expect(verifier.verify('support-key-0123456789')).toEqual({
      identity: 'support',
      method: 'api_key',
      toolsets: ['tickets'],
    });
  });

  it('refuses other keys, prefixes, extensions and the empty string', () => {
    const verifier = new ApiKeyVerifier(KEYS);
    for (const wrong of [
      '',
      'ci-key',
      'ci-key-0123456789abcdeF',
      'ci-key-0123456789abcdef ',
      'x'.repeat(10_000),
    ]) {
      expect(verifier.verify(wrong)).toBeUndefined();
    }
  });

  it('refuses duplicate names and duplicate keys at construction (config_invalid)', () => {
    expect(() => new ApiKeyVerifier([KEYS[0]!, { name: 'ci', key: 'another-key-0123456789' }])).toThrow(
      /auth\.apiKeys\[1\]\.name: duplicate key name "ci"/,
    );
    expect(() => new ApiKeyVerifier([KEYS[0]!, { name: 'other', key: KEYS[0]!.key }])).toThrow(
      /auth\.apiKeys\[1\]\.key: the same key is configured twice/,
    );
  });

  it('grants are a frozen copy: changing the config array later changes nothing', () => {
    const toolsets = ['a'];
    const verifier = new ApiKeyVerifier([{ name: 'n', key: 'k'.repeat(20), toolsets }]);
    toolsets.push('b');
    expect(verifier.verify('k'.repeat(20))?.toolsets).toEqual(['a']);
  });
});
