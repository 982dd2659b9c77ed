import { z } from 'zod';
import { publishedInputSchema } from '../foundation/zod-input.js';
import { MAX_PAGE_SIZE } from './tool-scope.js';

/** `limit` of a listing or search: how many results per page. */
export const LIMIT_INPUT = z
  .int()
  .min(1)
  .max(MAX_PAGE_SIZE)
  .describe(`How many results to return (default 20, at most ${MAX_PAGE_SIZE}).`);

/** `cursor` of a listing or search: where the next page starts. */
export const CURSOR_INPUT = z
  .string()
  .describe('nextCursor from a previous page of the same listing, to get the next page.');

/**
 * A search request: the arguments of the `search_tools` metatool and the body of
 * `POST /api/search`. Both surfaces validate against this one definition (published as
 * {@link SEARCH_INPUT_SCHEMA}), so a wrong-typed filter is the caller's `validation_input` on
 * each, never a failure deep inside the search.
 */
export const SEARCH_INPUT = z.strictObject({
  query: z.string().describe('What you want to do, in words or keywords.'),
  limit: LIMIT_INPUT.optional(),
  cursor: CURSOR_INPUT.optional(),
  namespace: z.string().describe('Only tools of this namespace (see list_namespaces).').optional(),
  tags: z.array(z.string()).describe('Only tools that carry all of these tags.').optional(),
  category: z.string().describe('Only tools of this category.').optional(),
  max_cost: z.number().min(0).describe('Leave out tools whose declared cost is higher.').optional(),
  max_latency_ms: z
    .number()
    .min(0)
    .describe('Leave out tools whose declared typical latency is higher.')
    .optional(),
  allow_side_effects: z
    .boolean()
    .describe('false: only read-only tools (tools that change nothing). Default true.')
    .optional(),
});

/** A search request as the search takes it. */
export type SearchInput = z.output<typeof SEARCH_INPUT>;

/** The JSON Schema of {@link SEARCH_INPUT}: what `tools/list` publishes for `search_tools`. */
export const SEARCH_INPUT_SCHEMA = publishedInputSchema(SEARCH_INPUT);
