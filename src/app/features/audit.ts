import { join, resolve } from 'node:path';
import type { ApertureConfig } from '../../config/config-schema.js';
import type { AuditEvent } from '../../foundation/ports/audit-trail.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { ReadableAuditTrail } from '../../operations/audit/audit-line.js';
import { callAudit } from '../../operations/audit/call-audit.js';
import { FileAuditTrail } from '../../operations/audit/file-audit-trail.js';
import { MemoryAuditTrail } from '../../operations/audit/memory-audit-trail.js';
import { RedisAuditTrail } from '../../operations/audit/redis-audit-trail.js';
import { maskStrings } from '../../operations/secrets/secret-masker.js';
import { SqliteStateStore } from '../../operations/state/sqlite-state-store.js';
import { userStateDir } from '../state-directory.js';
import type { FeatureFactory, GatewayParts } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    /** The tamper-evident audit trail (`audit:`): denials, approvals, admin actions, calls. */
    auditTrail: ReadableAuditTrail;
  }
}

/** The file name of the audit trail in the state directory. */
export const AUDIT_FILE = 'audit.jsonl';

/**
 * The audit trail (docs/APPROVALS-AND-AUDIT.md): opened before trust, approvals and the console,
 * which record into it; with `audit.calls` a middleware in the outermost slot records every call
 * (it sees every outcome). Where it goes: Redis with `state.driver: redis` (one chain for every
 * replica), else `audit.path`, else `audit.jsonl` in the state directory (kept in memory only with
 * `state.driver: memory` and no `audit.path`). `audit.calls` applies live; a new `audit.path`
 * needs a restart. Its routes: `GET /api/admin/audit` and the recording of admin actions.
 */
export const audit: FeatureFactory = async (config, parts) => {
  const { log, maskSecrets } = parts.gateway;
  const opened = await openTrail(config, parts, log.child({ component: 'audit' }));
  // Every string of every event masked: a resolved secret never reaches the trail.
  const trail: ReadableAuditTrail = {
    record: (event: AuditEvent) => opened.trail.record(maskStrings(event, (text) => maskSecrets(text))),
    recent: (limit) => opened.trail.recent(limit),
    close: () => opened.trail.close(),
  };
  parts.provide('auditTrail', trail);
  const path = config.audit.path;
  return {
    name: 'audit',
    middleware: { activity: callAudit({ trail, enabled: () => parts.config().audit.calls }) },
    reload: { audit: (next) => (next.config.audit.path === path ? undefined : 'restart') },
    http: {
      // Before trust's and the console's routes: its middleware records the admin actions they serve.
      routes: async ({ authEnabled }) => {
        const { auditRoutes } = await import('../../surfaces/console/audit-routes.js');
        return [
          auditRoutes({
            audit: { ...trail, settings: () => ({ calls: parts.config().audit.calls, where: opened.where }) },
            authEnabled,
          }),
        ];
      },
    },
    close: () => opened.trail.close(),
  };
};

/** The trail of the config, and where it is kept (what the console shows). */
async function openTrail(
  config: ApertureConfig,
  parts: GatewayParts,
  log: Logger,
): Promise<{ trail: ReadableAuditTrail; where: string }> {
  const shared = parts.need('shared');
  if (shared) return { trail: new RedisAuditTrail({ connection: shared.connection, log }), where: 'redis' };
  const baseDir = parts.gateway.loaded().baseDir;
  if (config.audit.path !== undefined) {
    const path = resolve(baseDir, config.audit.path);
    return { trail: await FileAuditTrail.open({ path, log }), where: path };
  }
  const state = parts.need('searchBacking').state;
  // Beside the state store's file, wherever it ended up (the working directory, or the per-user
  // directory when that one could not be created).
  const dir =
    state instanceof SqliteStateStore
      ? state.dir
      : config.state.driver === 'memory'
        ? undefined
        : (parts.gateway.options.stateDir ?? resolve(baseDir, config.state.dir));
  if (dir === undefined) return { trail: new MemoryAuditTrail(), where: 'memory' };
  for (const candidate of [dir, userStateDir()]) {
    const path = join(candidate, AUDIT_FILE);
    try {
      return { trail: await FileAuditTrail.open({ path, log }), where: path };
    } catch (error) {
      log.warn({ err: error, path }, 'cannot open the audit trail there');
    }
  }
  log.warn({}, 'keeping the audit trail in memory: no state directory can be written');
  return { trail: new MemoryAuditTrail(), where: 'memory' };
}
