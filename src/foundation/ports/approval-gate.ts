import type { CallerContext, ExecutionContext } from './tool-backend.js';

/** A call a policy rule (`effect: approve`) holds until a person answers. */
export interface ApprovalRequest {
  /** The tool's catalog id (`namespace:name`). */
  toolId: string;
  caller: CallerContext;
  /** Where the call came from: `mcp`, `rest`, `a2a`, `code`, `chain`, `skill` or `cli`. */
  surface: string;
  /** The arguments as validated; the gate redacts them before showing them to anyone. */
  args: Record<string, unknown>;
  /** The name of the rule that asked for approval. */
  rule: string;
  /** The rule's reason, shown to whoever answers. */
  reason?: string;
}

/**
 * Where held calls are answered: the calling client's elicitation when it declared it, else a queue
 * admins answer (console, admin API, CLI). Declared here so the run pipeline (execution/) can hold a
 * call without knowing who answers; the app chooses the implementation.
 */
export interface ApprovalGate {
  /**
   * Resolves when the call is approved. Rejects with a `GatewayError`: `approval_denied` when it is
   * declined, `approval_timeout` when nobody answered in time, `cancelled` when `context.signal`
   * aborts first.
   */
  approve(request: ApprovalRequest, context: ExecutionContext): Promise<void>;
}
