/** A held call waiting in the admin queue, as admins see it (the console, the API, the CLI). */
export interface PendingApproval {
  /** Names the call in `approve`/`deny`. */
  id: string;
  /** The tool's id (`namespace:name`). */
  tool: string;
  /** Who called: `apikey:NAME`, `jwt:SUB`, `anonymous`, `cli`… */
  caller: string;
  surface: string;
  /** The rule that asked for approval, and its reason. */
  rule: string;
  reason?: string;
  /** The arguments, redacted as the call log redacts them and with every known secret masked. */
  args: unknown;
  /** When it was asked, and when it will answer `approval_timeout` (ISO 8601). */
  requestedAt: string;
  expiresAt: string;
}
