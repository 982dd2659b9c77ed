import { z } from 'zod';
import { publishedInputSchema } from '../foundation/schema/zod-input.js';
import { MAX_PAGE_SIZE } from './tool-scope.js';

/** `limit` of a listing or search: how many results per page. */
export const LIMIT_INPUT = z.int().min(1).max(MAX_PAGE_SIZE);

/** `cursor` of a listing or search: the `nextCursor` of the previous page (the name says enough). */
export const CURSOR_INPUT = z.string();

/**
 * A search request: the arguments of the `search_tools` metatool and the body of
 * `POST /api/search`. Both surfaces validate against this one definition (published as
 * {@link SEARCH_INPUT_SCHEMA}), so a wrong-typed filter is the caller's `validation_input` on
 * each, never a failure deep inside the search.
 */
export const SEARCH_INPUT = z.strictObject({
  query: z.string().describe('e.g. "encode a diagram"'),
  limit: LIMIT_INPUT.optional(),
  cursor: CURSOR_INPUT.optional(),
  // Rarely needed filters: self-explanatory names, so a description only where a name is not enough.
  namespace: z.string().optional(),
  tags: z.array(z.string()).describe('All of these.').optional(),
  category: z.string().optional(),
  max_cost: z.number().min(0).optional(),
  max_latency_ms: z.number().min(0).optional(),
  allow_side_effects: z.boolean().describe('false: read-only tools only.').optional(),
  prefer: z.enum(['cheap', 'fast']).optional(),
});

/** A search request as the search takes it. */
export type SearchInput = z.output<typeof SEARCH_INPUT>;

/** The JSON Schema of {@link SEARCH_INPUT}: what `tools/list` publishes for `search_tools`. */
export const SEARCH_INPUT_SCHEMA = publishedInputSchema(SEARCH_INPUT);
