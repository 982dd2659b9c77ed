import { z } from 'zod';
import { int, nonEmptyString } from '../../foundation/schema/config-values.js';
import { DECLARED_TOOL_FIELDS, type DeclaredGroup } from '../declared/declared-section.js';

/** One read-only SQL query as a tool (`sql: { <tool name>: … }`). */
export const sqlEntrySchema = z.strictObject({
  ...DECLARED_TOOL_FIELDS,
  connection: nonEmptyString().describe(
    '`postgres://…` / `postgresql://…` (PostgreSQL), or `sqlite:<file>` (SQLite, relative to the config file); usually a `secret:` reference. One pool per distinct string.',
  ),
  query: nonEmptyString().describe(
    'The query; `:name` is the argument `name`, bound as a parameter (never written into the text).',
  ),
  maxRows: int(1, 100_000)
    .optional()
    .describe('Rows returned at most; more are cut and the result says `truncated: true`. Default 1000.'),
  timeoutMs: int(1)
    .optional()
    .describe('Time limit of the query (PostgreSQL `statement_timeout`). Default 10000.'),
});

/** One entry of `sql:` as validated. */
export type SqlEntry = z.output<typeof sqlEntrySchema>;

/** The queries of one namespace: one source. */
export type SqlGroup = DeclaredGroup<SqlEntry>;
