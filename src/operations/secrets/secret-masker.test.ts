import { describe, expect, it } from 'vitest';
import { createSecretMasker } from './secret-masker.js';

describe('createSecretMasker', () => {
  it('replaces every occurrence of every secret, longest first, regex characters included', () => {
    const mask = createSecretMasker(['s3cr.t+1', 's3cr.t+1-extended', 'tok(en)']);
    expect(mask('a s3cr.t+1-extended b s3cr.t+1 c tok(en) d s3crXt+1')).toBe(
      'a [REDACTED] b [REDACTED] c [REDACTED] d s3crXt+1',
    );
  });

  it('returns the text untouched without secrets', () => {
    expect(createSecretMasker([])('nothing to hide')).toBe('nothing to hide');
  });
});
