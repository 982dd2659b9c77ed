import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { LoadedSource } from '../../catalog/loaded-source.js';
import type { PublishEntries, Source, SourceState } from '../../catalog/source.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { JsonSchema } from '../../foundation/model/tool.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { propertiesOf } from '../declared/declared-input-schema.js';
import { declaredTool } from '../declared/declared-section.js';
import { SqlBackend } from './sql-backend.js';
import type { SqlGroup } from './sql-entry.js';
import { parseQueryParameters } from './sql-parameters.js';
import type { SqlPools } from './sql-pools.js';

/** Defaults of a `sql:` entry. */
export const SQL_DEFAULTS = { maxRows: 1000, timeoutMs: 10_000 } as const;

/** A parameter's inferred schema: any value a database binds. */
const PARAMETER_SCHEMA: JsonSchema = { type: ['string', 'number', 'integer', 'boolean', 'null'] };

/** What the driver gives the source. */
export interface SqlSourceContext {
  sourceId: string;
  baseDir: string;
  log: Logger;
  /** The shared pools; tests give their own. */
  pools?: SqlPools;
}

/**
 * The queries of one namespace of `sql:`. Loading checks every entry (connection string form,
 * every `:parameter` bound by the input schema) but connects to nothing: a database that is down
 * fails its tools' calls with `backend_unavailable`, and the gateway serves everything else.
 * Stopping releases the source's leases on the shared pools.
 */
export class SqlSource implements Source {
  readonly id: string;
  readonly kind = 'sql';
  private readonly loaded: LoadedSource;
  private readonly releases: (() => Promise<void>)[] = [];

  constructor(group: SqlGroup, context: SqlSourceContext) {
    this.id = context.sourceId;
    this.loaded = new LoadedSource(context.sourceId, 'sql', () => this.load(group, context), context.log);
  }

  start(publish: PublishEntries): Promise<void> {
    return this.loaded.start(publish);
  }

  state(): SourceState {
    return this.loaded.state();
  }

  async stop(): Promise<void> {
    const releases = this.releases.splice(0);
    await Promise.all(releases.map((release) => release()));
  }

  private async load(group: SqlGroup, context: SqlSourceContext): Promise<CatalogEntry[]> {
    // The database drivers are imported only when a `sql:` section is configured.
    const { parseConnection, SQL_POOLS } = await import('./sql-pools.js');
    const pools = context.pools ?? SQL_POOLS;
    const checked = group.tools.map(([name, entry]) => {
      const label = `${group.section}.${name}`;
      const target = parseConnection(entry.connection, context.baseDir, label);
      const query = parseQueryParameters(entry.query);
      return {
        name,
        entry,
        label,
        target,
        query,
        inputSchema: inputSchemaOf(entry.inputSchema, query.names, label),
      };
    });
    return checked.map(({ name, entry, label, target, query, inputSchema }) => {
      const timeoutMs = entry.timeoutMs ?? SQL_DEFAULTS.timeoutMs;
      const lease = pools.lease(target, label, timeoutMs);
      this.releases.push(lease.release);
      const tool = declaredTool({
        sourceId: context.sourceId,
        kind: 'sql',
        namespace: group.namespace,
        name,
        entry,
        inputSchema,
        description: `Runs a read-only ${target.engine === 'postgres' ? 'PostgreSQL' : 'SQLite'} query: ${excerpt(entry.query)}`,
        annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
        tags: ['sql', 'database', target.engine],
        timeoutMs,
        notes: `Declared in the config (${label}). The result is { rows, columns: [{ name, type }], rowCount, truncated }; at most ${entry.maxRows ?? SQL_DEFAULTS.maxRows} rows.`,
      });
      const backend = new SqlBackend(lease.connection, query, {
        maxRows: entry.maxRows ?? SQL_DEFAULTS.maxRows,
        timeoutMs,
      });
      return { tool, backend };
    });
  }
}

/**
 * The entry's input schema, or one inferred from the query's parameters (each required, any
 * scalar). A written schema must declare every parameter: an unbound one is `config_invalid`.
 */
function inputSchemaOf(written: JsonSchema | undefined, names: readonly string[], label: string): JsonSchema {
  if (written === undefined) {
    return {
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, PARAMETER_SCHEMA])),
      ...(names.length > 0 ? { required: [...names] } : {}),
      additionalProperties: false,
    };
  }
  const declared = new Set(Object.keys(propertiesOf(written)));
  const unbound = names.find((name) => !declared.has(name));
  if (unbound !== undefined) {
    throw new GatewayError(
      'config_invalid',
      `${label}.query: parameter ":${unbound}" is not bound: inputSchema declares ${
        [...declared].map((n) => `"${n}"`).join(', ') || 'no properties'
      }`,
      { details: { key: `${label}.query`, parameter: unbound } },
    );
  }
  return written;
}

function excerpt(query: string): string {
  const flat = query.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 160)}…` : flat;
}
