import type { Tool } from '../../foundation/model/tool.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import type { SqlConnection } from './sql-connection.js';
import type { ParsedQuery } from './sql-parameters.js';

/** Limits of one SQL tool. */
export interface SqlLimits {
  maxRows: number;
  timeoutMs: number;
}

/**
 * Runs one declared query with the call's arguments bound to its parameters. The result is
 * structured: `{ rows, columns: [{ name, type }], rowCount, truncated }`.
 */
export class SqlBackend implements ToolBackend {
  constructor(
    private readonly connection: SqlConnection,
    private readonly query: ParsedQuery,
    private readonly limits: SqlLimits,
  ) {}

  async execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    ctx.log.debug({ tool: tool.id }, 'sql query');
    const result = await this.connection.query(this.query, args, { ...this.limits, signal: ctx.signal });
    return {
      rows: result.rows,
      columns: result.columns,
      rowCount: result.rows.length,
      truncated: result.truncated,
    };
  }
}
