import { describe, expect, it } from 'vitest';
import { resultText, resultValue } from './result-value.js';

const text = (...texts: string[]) => ({ content: texts.map((t) => ({ type: 'text' as const, text: t })) });

describe('resultValue', () => {
  it('prefers structuredContent over the text', () => {
    expect(resultValue({ ...text('[1]'), structuredContent: { a: 1 } })).toEqual({ a: 1 });
  });

  it('parses text of any JSON type', () => {
    expect(resultValue(text('{"a":[1,2]}'))).toEqual({ a: [1, 2] });
    expect(resultValue(text('[1,2]'))).toEqual([1, 2]);
    expect(resultValue(text(' 42 '))).toBe(42);
    expect(resultValue(text('"quoted"'))).toBe('quoted');
    expect(resultValue(text('true'))).toBe(true);
    expect(resultValue(text('null'))).toBeNull();
  });

  it('keeps text that is not JSON as text, including an empty result', () => {
    expect(resultValue(text('just words'))).toBe('just words');
    expect(resultValue(text('{not json'))).toBe('{not json');
    expect(resultValue({ content: [] })).toBe('');
  });

  it('joins several text blocks with newlines and leaves other blocks out', () => {
    const result = {
      content: [
        { type: 'text' as const, text: '[1,' },
        { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' },
        { type: 'text' as const, text: '2]' },
      ],
    };
    expect(resultText(result)).toBe('[1,\n2]');
    expect(resultValue(result)).toEqual([1, 2]);
  });
});
