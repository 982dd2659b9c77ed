import { describe, expect, it } from 'vitest';
import { growingMasker } from './growing-masker.js';

describe('growingMasker', () => {
  it('masks the secrets it was given and, after add, the new ones as well as the old', () => {
    const mask = growingMasker(['first-secret']);
    expect(mask('a first-secret and a second-secret')).not.toContain('first-secret');
    expect(mask('a second-secret')).toContain('second-secret');
    mask.add(['second-secret']);
    const masked = mask('a first-secret and a second-secret');
    expect(masked).not.toContain('first-secret');
    expect(masked).not.toContain('second-secret');
  });
});
