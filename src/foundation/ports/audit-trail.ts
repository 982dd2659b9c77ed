/** One line of the audit trail: who did what, to which tool, and what was decided. */
export interface AuditEvent {
  /** What happened, dotted: `policy.deny`, `approval.request`, `approval.answer`, `admin.reload`, `call`, … */
  kind: string;
  /** Who did it: the caller's key (`apikey:NAME`, `jwt:SUB`, `cli`, `anonymous`) or the admin's. */
  actor: string;
  /** The tool concerned, when there is one. */
  tool?: string;
  /** The surface the call came through, when there is one. */
  surface?: string;
  /** The outcome (`deny`, `approve`, `approved`, `denied`, `timeout`, `ok`, an error code…). */
  decision?: string;
  /** The policy rule (or Cedar policy id) that decided, when one did. */
  rule?: string;
  /** Anything else worth keeping; arguments here are already redacted. */
  details?: Record<string, unknown>;
}

/**
 * The append-only, tamper-evident audit log (`audit:` in the config): each line carries the hash of
 * the line before it. Declared here so any layer can record an event; the app chooses where lines go
 * (a file in the state directory, or Redis when state is shared).
 */
export interface AuditTrail {
  /** Appends one event (the trail adds the time and the chain hash). Never throws on a write failure: it logs. */
  record(event: AuditEvent): Promise<void>;
}
