import pg from 'pg';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { SqlColumn, SqlConnection, SqlRows, SqlRunOptions } from './sql-connection.js';
import type { ParsedQuery } from './sql-parameters.js';

/** Names of the common PostgreSQL type OIDs; others are reported as `oid:<n>`. */
const TYPE_NAMES: Readonly<Record<number, string>> = {
  16: 'bool',
  17: 'bytea',
  18: 'char',
  19: 'name',
  20: 'int8',
  21: 'int2',
  23: 'int4',
  25: 'text',
  26: 'oid',
  114: 'json',
  700: 'float4',
  701: 'float8',
  1042: 'bpchar',
  1043: 'varchar',
  1082: 'date',
  1083: 'time',
  1114: 'timestamp',
  1184: 'timestamptz',
  1186: 'interval',
  1700: 'numeric',
  2950: 'uuid',
  3802: 'jsonb',
  1000: 'bool[]',
  1007: 'int4[]',
  1016: 'int8[]',
  1009: 'text[]',
};

/** SQLSTATE classes that mean the database is not there for us (connection, startup, auth). */
const UNAVAILABLE_STATES = /^(08|28|3D|53|57P0[1-3])/;

/**
 * A PostgreSQL pool (`pg`), one per connection string. Each query: a client from the pool,
 * `BEGIN READ ONLY` with `SET LOCAL statement_timeout`, the query with its values bound
 * (rows streamed and kept up to `maxRows + 1`, so a huge result costs no memory), `ROLLBACK`.
 */
export class PostgresConnection implements SqlConnection {
  private readonly pool: pg.Pool;

  constructor(
    connectionString: string,
    private readonly label: string,
    connectTimeoutMs: number,
  ) {
    this.pool = new pg.Pool({
      // Every transaction of these connections is read-only unless a statement says otherwise,
      // so even a query that ended the per-call READ ONLY transaction could not write after it.
      options: '-c default_transaction_read_only=on',
      connectionString,
      max: 5,
      connectionTimeoutMillis: connectTimeoutMs,
      idleTimeoutMillis: 30_000,
    });
    // An idle client losing its connection must not crash the gateway; the next query reconnects.
    this.pool.on('error', () => {});
  }

  async query(
    query: ParsedQuery,
    values: Readonly<Record<string, unknown>>,
    options: SqlRunOptions,
  ): Promise<SqlRows> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.unavailable(error);
    }
    let broken: Error | undefined;
    const onAbort = () => {
      broken = new Error('aborted');
      // Closing the socket is what stops a running query from here; the client is then discarded.
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await client.query(
        `BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.floor(options.timeoutMs)}`,
      );
      const result = await stream(
        client,
        query.postgres,
        query.names.map((name) => toParameter(values[name])),
        options.maxRows,
      );
      await client.query('ROLLBACK');
      return result;
    } catch (error) {
      if (options.signal.aborted) throw abortReason(options.signal);
      if (!isDatabaseError(error)) broken = error instanceof Error ? error : new Error(String(error));
      else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw this.mapError(error, options.timeoutMs);
    } finally {
      options.signal.removeEventListener('abort', onAbort);
      client.release(broken ?? false);
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }

  private unavailable(error: unknown): GatewayError {
    return new GatewayError(
      'backend_unavailable',
      `${this.label}: cannot connect to the database: ${messageOf(error)}`,
      {
        cause: error,
        details: { key: `${this.label}.connection` },
      },
    );
  }

  private mapError(error: unknown, timeoutMs: number): GatewayError {
    if (error instanceof GatewayError) return error;
    const code = isDatabaseError(error) ? error.code : undefined;
    if (code === '57014') {
      return new GatewayError('timeout', `${this.label}: the query did not finish within ${timeoutMs} ms`, {
        details: { timeoutMs },
      });
    }
    if (code === undefined || UNAVAILABLE_STATES.test(code)) return this.unavailable(error);
    return new GatewayError(
      'execution_failed',
      `${this.label}: the database refused the query: ${messageOf(error)}`,
      {
        cause: error,
        details: { sqlstate: code },
      },
    );
  }
}

/** Runs one query, keeping at most `maxRows + 1` rows (the extra one only says "truncated"). */
function stream(client: pg.PoolClient, text: string, values: unknown[], maxRows: number): Promise<SqlRows> {
  return new Promise((resolve, reject) => {
    // Extended protocol always: one statement per query, so a query text can never hold a
    // `ROLLBACK; DELETE …` that leaves the read-only transaction (the simple protocol would run both).
    const config: pg.QueryConfig & { queryMode: 'extended' } = { text, values, queryMode: 'extended' };
    const query = new pg.Query(config);
    const rows: Record<string, unknown>[] = [];
    let seen = 0;
    query.on('row', (row: Record<string, unknown>) => {
      seen++;
      if (rows.length < maxRows) rows.push(row);
    });
    query.on('error', reject);
    query.on('end', (result: pg.QueryResult | pg.QueryResult[]) => {
      const last = Array.isArray(result) ? result.at(-1) : result;
      const columns: SqlColumn[] = (last?.fields ?? []).map((field) => ({
        name: field.name,
        type: TYPE_NAMES[field.dataTypeID] ?? `oid:${field.dataTypeID}`,
      }));
      resolve({ columns, rows, truncated: seen > maxRows });
    });
    client.query(query);
  });
}

/** A value as `pg` binds it: objects (JSON arguments) as JSON text. */
function toParameter(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return JSON.stringify(value);
  return value;
}

function isDatabaseError(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Error)) return false;
  const code: unknown = (error as Error & { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-DF-Z][0-9A-Z]{4}$/.test(code);
}

function abortReason(signal: AbortSignal): GatewayError {
  const reason: unknown = signal.reason;
  return reason instanceof GatewayError ? reason : new GatewayError('cancelled', 'The call was cancelled');
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}
