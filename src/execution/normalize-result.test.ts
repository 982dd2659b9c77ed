import { describe, expect, it } from 'vitest';
import { normalizeResult } from './normalize-result.js';

describe('normalizeResult', () => {
  it('passes a full MCP result through', () => {
    const full = { content: [{ type: 'image' as const, data: 'AA==', mimeType: 'image/png' }] };
    expect(normalizeResult(full)).toBe(full);
  });

  it('turns strings into text, objects into structured content, scalars and arrays into { result }', () => {
    expect(normalizeResult('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(normalizeResult({ a: 1 })).toEqual({
      content: [{ type: 'text', text: '{"a":1}' }],
      structuredContent: { a: 1 },
    });
    expect(normalizeResult([1, 2]).structuredContent).toEqual({ result: [1, 2] });
    expect(normalizeResult(7).structuredContent).toEqual({ result: 7 });
    expect(normalizeResult(undefined)).toEqual({ content: [{ type: 'text', text: '' }] });
  });

  it('refuses values that are not JSON', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => normalizeResult(cyclic)).toThrow(/not JSON/);
    expect(() => normalizeResult({ big: 10n })).toThrow(/not JSON/);
  });
});
