import { z } from 'zod';
import { declaredToolName, groupByNamespace } from '../declared/declared-section.js';
import type { SourceDriver, SourceSection } from '../source-driver.js';
import { type SqlEntry, type SqlGroup, sqlEntrySchema } from './sql-entry.js';
import { SqlSource } from './sql-source.js';

function sourceId(namespace: string): string {
  return `sql:${namespace}`;
}

/**
 * Read-only SQL queries declared in the config (`sql:`, keyed by tool name), one source per
 * namespace; PostgreSQL (`pg`) and SQLite (better-sqlite3) are loaded only when configured.
 */
export const SQL_DRIVER: SourceDriver<'sql', SourceSection<'sql', Record<string, SqlEntry>, SqlGroup>> = {
  kind: 'sql',
  // The user wrote the queries: nothing a third party can change under the agent.
  trustGated: false,
  section: {
    name: 'sql',
    fields: {
      sql: z
        .record(declaredToolName(), sqlEntrySchema)
        .default({})
        .describe('Read-only SQL queries (PostgreSQL or SQLite) as tools, keyed by tool name.'),
    },
    entries: (queries) => groupByNamespace('sql', queries),
    sourceId,
    create(namespace, group, context) {
      return new SqlSource(group, {
        sourceId: sourceId(namespace),
        baseDir: context.baseDir,
        log: context.log,
      });
    },
  },
};
