import { describe, expect, it } from 'vitest';
import { groupWarnings } from './grouped-warnings.js';

describe('groupWarnings', () => {
  it('says a warning repeated for many tools once, with a count and the first tools named', () => {
    const ids = Array.from({ length: 104 }, (_, i) => `ns:tool${i}`);
    const warnings = [
      ...ids.map((id) => `${id} (openai): outputSchema cannot be expressed in this format; dropped`),
      'ns:tool7 (openai): format "uri" dropped at /properties/url',
    ];
    expect(groupWarnings(warnings)).toEqual([
      'ns:tool0 (openai): outputSchema cannot be expressed in this format; dropped (×104: also ns:tool1, ns:tool2, ns:tool3 and 100 more)',
      'ns:tool7 (openai): format "uri" dropped at /properties/url',
    ]);
  });

  it('keeps single warnings as they are and counts identical unprefixed ones', () => {
    expect(groupWarnings(['a:b (gemini): x', 'a:c (openai): x', 'plain', 'plain'])).toEqual([
      'a:b (gemini): x',
      'a:c (openai): x',
      'plain (×2)',
    ]);
  });
});
