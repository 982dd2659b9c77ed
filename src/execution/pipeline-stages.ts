import type { GatewayErrorCode } from '../foundation/model/error-codes.js';
import type { GatewayError } from '../foundation/model/gateway-error.js';

/**
 * The run pipeline's stages, in order. A closed list: every call passes through exactly these, and
 * each documents the codes it can raise. `RunPipeline` stamps every error it raises with the stage
 * it failed in (`details.stage`); `pipeline-stages.test.ts` walks this list against the pipeline.
 */
export const PIPELINE_STAGES = [
  'parse_id',
  'resolve',
  'authorize',
  'validate_input',
  'select_backend',
  'middlewares',
  'execute',
  'normalize',
  'validate_output',
] as const;

export type PipelineStage = (typeof PIPELINE_STAGES)[number];

/**
 * The codes each stage can produce. `middlewares` and `execute` include `timeout` and `cancelled`
 * because the call's deadline and the client's cancel cut whichever of the two is running;
 * `internal` there is a bug in a middleware or a backend reporting one. `authorize` includes the
 * answers of a call a policy rule holds for approval: declined, unanswered in time, or cancelled
 * by its client while it waited.
 */
export const STAGE_ERROR_CODES: Readonly<Record<PipelineStage, readonly GatewayErrorCode[]>> = {
  parse_id: ['tool_not_found'],
  resolve: ['tool_not_found', 'tool_quarantined'],
  authorize: ['unauthorized', 'forbidden', 'approval_denied', 'approval_timeout', 'cancelled'],
  validate_input: ['validation_input'],
  select_backend: ['backend_unavailable'],
  middlewares: ['rate_limited', 'backend_unavailable', 'timeout', 'cancelled', 'internal'],
  execute: ['execution_failed', 'timeout', 'cancelled', 'backend_unavailable', 'auth_required', 'internal'],
  normalize: ['execution_failed', 'payload_too_large'],
  validate_output: ['validation_output'],
};

/** `error` with `details.stage` set to `stage` (a copy; an error already saying so is returned as is). */
export function withStage(error: GatewayError, stage: PipelineStage): GatewayError {
  if (error.details?.stage === stage) return error;
  return error.with({ details: { ...error.details, stage } });
}
