import type { ParsedQuery } from './sql-parameters.js';

/** A column of a query's result: its name and the type the database gives it. */
export interface SqlColumn {
  name: string;
  /** `int4`, `text`, `timestamptz`… (PostgreSQL); the declared type or the value's (SQLite). */
  type: string;
}

/** What a query returned, cut at `maxRows`. */
export interface SqlRows {
  columns: SqlColumn[];
  rows: Record<string, unknown>[];
  /** Whether the query had more rows than `maxRows`. */
  truncated: boolean;
}

/** How one query runs. */
export interface SqlRunOptions {
  maxRows: number;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * A database as the SQL tools use it: every query runs read-only, enforced by the database
 * itself (a `READ ONLY` transaction, a read-only SQLite handle with `query_only`), so a query
 * that would write is refused whatever its text. Failures are GatewayErrors: `backend_unavailable`
 * (cannot connect), `timeout`, `cancelled`, `execution_failed` (the database refused the query).
 */
export interface SqlConnection {
  query(
    query: ParsedQuery,
    values: Readonly<Record<string, unknown>>,
    options: SqlRunOptions,
  ): Promise<SqlRows>;
  close(): Promise<void>;
}
