import type { GatewayErrorCode } from '../foundation/error-codes.js';

/**
 * The run pipeline's stages, in order. A closed list: every call passes through exactly these, and
 * each documents the codes it can raise (the `stage` in an error's details names where it failed).
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

/** The codes each stage can produce. */
export const STAGE_ERROR_CODES: Readonly<Record<PipelineStage, readonly GatewayErrorCode[]>> = {
  parse_id: ['tool_not_found'],
  resolve: ['tool_not_found'],
  authorize: ['unauthorized', 'forbidden'],
  validate_input: ['validation_input'],
  select_backend: ['backend_unavailable'],
  middlewares: ['rate_limited', 'backend_unavailable', 'timeout', 'cancelled'],
  execute: ['execution_failed', 'timeout', 'cancelled', 'backend_unavailable', 'internal'],
  normalize: ['execution_failed', 'payload_too_large', 'validation_output'],
  validate_output: ['validation_output'],
};
