import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import { CallToolResultCheck } from './call-tool-result-check.js';

/** What a standard-schema check makes of `value`: its value, or 'refused'. */
async function outcome(check: { '~standard': { validate(value: unknown): unknown } }, value: unknown) {
  const result = (await check['~standard'].validate(value)) as { value?: unknown; issues?: unknown[] };
  return result.issues ? 'refused' : result.value;
}

describe('CallToolResultCheck', () => {
  const results: Record<string, unknown> = {
    'text content': { content: [{ type: 'text', text: 'hi' }] },
    'text, isError and structured content': {
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      isError: false,
      structuredContent: { sum: 3, nested: [1, { x: null }] },
    },
    'empty content': { content: [] },
    'no content (the schema defaults it)': { isError: true },
    'a text block with annotations': { content: [{ type: 'text', text: 'a', annotations: { priority: 1 } }] },
    'a text block with an unknown key (the schema strips it)': {
      content: [{ type: 'text', text: 'a', x: 1 }],
    },
    'an image': { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] },
    'a result with _meta': { content: [], _meta: { k: 1 } },
    'an unknown top-level key': { content: [], toolResult: 1 },
    'a numeric text': { content: [{ type: 'text', text: 5 }] },
    'a string isError': { content: [], isError: 'no' },
    'null structured content': { content: [], structuredContent: null },
    'content that is not an array': { content: { type: 'text', text: 'a' } },
    'a null block': { content: [null] },
    'an array': [],
    null: null,
  };

  it.each(Object.entries(results))('reads %s as the SDK schema does', async (_name, value) => {
    expect(await outcome(CallToolResultCheck, value)).toEqual(await outcome(CallToolResultSchema, value));
  });

  it('takes a plain text result as it is, and sends the rest through the schema', async () => {
    const plain = { content: [{ type: 'text', text: 'hi' }], isError: false };
    expect(await outcome(CallToolResultCheck, plain)).toBe(plain);
    const image = { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] };
    expect(await outcome(CallToolResultCheck, image)).not.toBe(image);
  });
});
