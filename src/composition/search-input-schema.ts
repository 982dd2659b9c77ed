import { MAX_PAGE_SIZE } from './tool-scope.js';

/** `limit` of a listing or search: how many results per page. */
export const LIMIT_SCHEMA = {
  type: 'integer',
  minimum: 1,
  maximum: MAX_PAGE_SIZE,
  description: `How many results to return (default 20, at most ${MAX_PAGE_SIZE}).`,
} as const;

/** `cursor` of a listing or search: where the next page starts. */
export const CURSOR_SCHEMA = {
  type: 'string',
  description: 'nextCursor from a previous page of the same listing, to get the next page.',
} as const;

/**
 * The JSON Schema of a search request: the arguments of the `search_tools` metatool and the body
 * of `POST /api/search`. Both surfaces validate against this one schema, so a wrong-typed filter
 * is the caller's `validation_input` on each, never a failure deep inside the search.
 */
export const SEARCH_INPUT_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What you want to do, in words or keywords.' },
    limit: LIMIT_SCHEMA,
    cursor: CURSOR_SCHEMA,
    namespace: { type: 'string', description: 'Only tools of this namespace (see list_namespaces).' },
    tags: {
      type: 'array',
      items: { type: 'string' },
      description: 'Only tools that carry all of these tags.',
    },
    category: { type: 'string', description: 'Only tools of this category.' },
    max_cost: {
      type: 'number',
      minimum: 0,
      description: 'Leave out tools whose declared cost is higher.',
    },
    max_latency_ms: {
      type: 'number',
      minimum: 0,
      description: 'Leave out tools whose declared typical latency is higher.',
    },
    allow_side_effects: {
      type: 'boolean',
      description: 'false: only read-only tools (tools that change nothing). Default true.',
    },
  },
  required: ['query'],
  additionalProperties: false,
} as const;
