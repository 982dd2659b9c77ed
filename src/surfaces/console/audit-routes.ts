import type { Context, Hono } from 'hono';
import type { AuditEvent } from '../../foundation/ports/audit-trail.js';
import { ANONYMOUS_CALLER, callerKey } from '../../foundation/ports/tool-backend.js';
import { redactArgs } from '../../operations/observe/redact-args.js';
import { requestCaller } from '../http/request-caller.js';
import type { AuditLine } from './admin-contract.js';
import { adminRouter } from './admin-router.js';

/** What the routes need of the gateway's audit trail. */
export interface AuditAdmin {
  /** The last `limit` lines, oldest first. */
  recent(limit: number): Promise<AuditLine[]>;
  /** Appends one event (never throws). */
  record(event: AuditEvent): Promise<void>;
  /** `audit.calls` now, and where the trail is kept. */
  settings(): { calls: boolean; where: string };
}

/** Options of {@link auditRoutes}. */
export interface AuditRoutesOptions {
  audit: AuditAdmin;
  /** True when auth is configured: then only an admin identity may read the trail. */
  authEnabled: boolean;
}

/** Lines answered when `?limit=` does not say, and the most ever answered. */
const DEFAULT_LIMIT = 200;
const MAX_LIMIT = 5000;

/** The largest request body kept to describe an admin action (a trust approval's ids). */
const MAX_RECORDED_BODY = 16 * 1024;

/**
 * The admin actions the trail records, by route: the kind of event and what of the path names the
 * target. Approvals are not here: the desk records each answer itself (`approval.answer`), with
 * the call it answered.
 */
const ADMIN_ACTIONS: readonly { pattern: RegExp; kind: string; target?: string }[] = [
  { pattern: /^\/api\/admin\/reload$/, kind: 'admin.reload' },
  { pattern: /^\/api\/admin\/trust\/approve$/, kind: 'admin.trust_approve' },
  { pattern: /^\/api\/admin\/sources\/([^/]+)\/reconnect$/, kind: 'admin.reconnect', target: 'server' },
  { pattern: /^\/api\/admin\/sources\/([^/]+)\/login$/, kind: 'admin.login', target: 'server' },
];

/**
 * `GET /api/admin/audit` (the console's Activity page, `?limit=`), and the recording of admin
 * actions: a middleware on `/api/admin/*` — this sub-app is mounted before the routes it watches
 * (the audit feature is listed before trust and the console) — appends one line per reload,
 * trust approval, reconnect and login, with who asked, the outcome (`ok`, or the HTTP status of
 * the refusal) and the request's body redacted as the call log redacts arguments.
 */
export function auditRoutes(options: AuditRoutesOptions): Hono {
  const { audit } = options;
  const { app, serve } = adminRouter({ authEnabled: options.authEnabled, maxBodyBytes: 0 });
  app.use('/api/admin/*', async (c, next) => {
    const action =
      c.req.method === 'POST' ? ADMIN_ACTIONS.find((a) => a.pattern.test(c.req.path)) : undefined;
    if (!action) return next();
    const copy = bodyCopy(c);
    await next();
    const status = c.res.status;
    const target = action.target ? c.req.path.match(action.pattern)?.[1] : undefined;
    const body = await copy;
    await audit.record({
      kind: action.kind,
      actor: callerKey(requestCaller(c) ?? ANONYMOUS_CALLER),
      decision: status < 400 ? 'ok' : `status ${status}`,
      details: {
        ...(target === undefined ? {} : { [action.target ?? 'target']: decodeURIComponent(target) }),
        ...(body === undefined ? {} : { request: redactArgs(body) }),
      },
    });
  });
  serve({
    adminAudit: async ({ query }) => {
      const asked = Number(query.limit ?? DEFAULT_LIMIT);
      const limit = Number.isInteger(asked) && asked > 0 ? Math.min(asked, MAX_LIMIT) : DEFAULT_LIMIT;
      return { lines: await audit.recent(limit), ...audit.settings() };
    },
  });
  return app;
}

/** The request's JSON body, read from a copy (the route reads the original); undefined when there is none. */
async function bodyCopy(c: Context): Promise<unknown> {
  const declared = c.req.header('content-length');
  if (declared !== undefined && !(Number(declared) > 0 && Number(declared) <= MAX_RECORDED_BODY))
    return undefined;
  if (c.req.raw.body === null) return undefined;
  try {
    const text = await c.req.raw.clone().text();
    return text.length > 0 && text.length <= MAX_RECORDED_BODY ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}
