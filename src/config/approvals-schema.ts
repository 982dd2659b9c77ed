import { z } from 'zod';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from '../operations/approvals/approval-desk.js';
import { bool, int, nonEmptyString } from './schema-primitives.js';

export const approvalsSection = z
  .strictObject({
    via: z
      .enum(['auto', 'admin'], { error: 'must be "auto" or "admin"' })
      .default('auto')
      .describe(
        '`auto` (default): the calling MCP client is asked when it declared elicitation, else the admins; `admin`: always the admins (console, `/api/admin/approvals`, `aperture approvals`).',
      ),
    timeoutMs: int(1)
      .default(DEFAULT_APPROVAL_TIMEOUT_MS)
      .describe(
        'How long a held call waits for an answer before it answers `approval_timeout`. Default 300000 (5 minutes).',
      ),
  })
  .prefault({})
  .describe(
    '`approvals`: how calls a policy rule holds (`effect: approve`) are answered (docs/APPROVALS-AND-AUDIT.md). Applied live: a reload changes how the next held call is asked.',
  );

export const auditSection = z
  .strictObject({
    path: nonEmptyString()
      .optional()
      .describe(
        'The JSON Lines file, relative to the config file; default `audit.jsonl` in the state directory. Not used with `state.driver: redis` (the replicas share one trail in Redis).',
      ),
    calls: bool()
      .default(false)
      .describe(
        'Record every tool call too (one line each, arguments redacted as in the call log). Default false.',
      ),
  })
  .prefault({})
  .describe(
    '`audit`: the tamper-evident audit trail (docs/APPROVALS-AND-AUDIT.md). Denials, approvals and admin actions are always recorded; `calls` adds every tool call.',
  );
