import { CallToolResultSchema } from '@modelcontextprotocol/core';
import { isRecord } from '../../foundation/util/is-record.js';

type Validation = ReturnType<(typeof CallToolResultSchema)['~standard']['validate']>;

/**
 * The check of a downstream server's `tools/call` result, as the SDK client runs it: the SDK's
 * `CallToolResultSchema`, except that the answer of nearly every call — text content only, with
 * `isError` and `structuredContent` or not, nothing else — is taken as it is after a few checks.
 * The schema is a union over five kinds of content, and with the message schema it was most of
 * what a cold gateway spent per call on reading an answer. Whatever else a result holds (images,
 * resources, annotations, `_meta`, unknown keys) goes through the schema as before.
 */
export const CallToolResultCheck = {
  '~standard': {
    version: 1 as const,
    vendor: 'aperture',
    validate: (value: unknown): Validation =>
      isPlainTextResult(value)
        ? { value: value as never }
        : CallToolResultSchema['~standard'].validate(value),
  },
};

function isPlainTextResult(value: unknown): boolean {
  if (!isRecord(value)) return false;
  let content: unknown;
  for (const key in value) {
    if (key === 'content') content = value.content;
    else if (key === 'isError') {
      if (typeof value.isError !== 'boolean') return false;
    } else if (key !== 'structuredContent') return false;
  }
  if (!Array.isArray(content)) return false;
  for (const block of content) {
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') return false;
    let keys = 0;
    for (const _ in block) keys++;
    if (keys !== 2) return false;
  }
  return true;
}
