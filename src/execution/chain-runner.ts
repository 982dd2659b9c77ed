import { GatewayError, toGatewayError } from '../foundation/model/gateway-error.js';
import { resultValue } from '../foundation/model/result-value.js';
import type { JsonSchema } from '../foundation/model/tool.js';
import type { ProgressUpdate } from '../foundation/ports/tool-backend.js';
import type { RunPipeline, RunRequest } from './run-pipeline.js';

/** One step of a chain. */
export interface ChainStep {
  tool_id: string;
  args?: Record<string, unknown> | undefined;
  /** Feed the previous step's result into this step's arguments (see `mergePrevious`). */
  use_previous?: boolean | undefined;
}

/** What a chain returns: every step's value, and the last one as `result`. */
export interface ChainOutcome {
  steps: { tool_id: string; result: unknown }[];
  result: unknown;
}

export type ChainRequest = Omit<RunRequest, 'toolId' | 'args'> & {
  steps: readonly ChainStep[];
  maxSteps: number;
};

/**
 * Runs steps in order and stops at the first failure with `chain_step_failed`, whose details name
 * the failing step (`step`, zero-based), its tool, the underlying error, and the values of the
 * steps that completed.
 */
export async function runChain(pipeline: RunPipeline, request: ChainRequest): Promise<ChainOutcome> {
  const { steps, maxSteps, progress, ...common } = request;
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new GatewayError('validation_input', 'A chain needs at least one step');
  }
  if (steps.length > maxSteps) {
    throw new GatewayError(
      'validation_input',
      `A chain may have at most ${maxSteps} steps (got ${steps.length})`,
      {
        details: { limit: maxSteps },
      },
    );
  }
  const done: ChainOutcome['steps'] = [];
  const caller = { ...common.caller, surface: 'chain' as const };
  let previous: unknown;
  for (const [index, step] of steps.entries()) {
    try {
      let args = step.args ?? {};
      if (step.use_previous && index > 0) {
        const tool = pipeline.resolve(step.tool_id, common.isVisible);
        args = mergePrevious(tool.inputSchema, args, previous);
      }
      const onProgress = (update: ProgressUpdate) => progress?.(update);
      onProgress({ progress: index, total: steps.length, message: `step ${index + 1}: ${step.tool_id}` });
      // A step's surface is the chain's, whichever surface ran the chain: policy rules can tell.
      const result = await pipeline.run({ ...common, caller, toolId: step.tool_id, args });
      previous = resultValue(result);
      done.push({ tool_id: step.tool_id, result: previous });
    } catch (error) {
      const cause = toGatewayError(error);
      throw new GatewayError(
        'chain_step_failed',
        `Step ${index} (${step.tool_id}) failed: [${cause.code}] ${cause.message}`,
        {
          retryable: cause.retryable,
          details: { step: index, tool_id: step.tool_id, error: cause.toJSON(), completed: done },
          cause,
        },
      );
    }
  }
  progress?.({ progress: steps.length, total: steps.length, message: 'done' });
  return { steps: done, result: previous };
}

/**
 * The `use_previous` rule: from the previous step's value (its structured result, or its text
 * parsed as a JSON object), copy into this step's arguments only the keys that this tool's input
 * schema declares under `properties`, and only those the step did not set itself. A tool with a
 * strict schema (`additionalProperties: false`) therefore never receives an unexpected key. A
 * previous value that is not an object, and a schema without declared properties, add nothing.
 */
export function mergePrevious(
  schema: JsonSchema,
  args: Record<string, unknown>,
  previous: unknown,
): Record<string, unknown> {
  const properties = schema.properties;
  if (typeof previous !== 'object' || previous === null || Array.isArray(previous)) return args;
  if (typeof properties !== 'object' || properties === null) return args;
  const merged = { ...args };
  for (const key of Object.keys(properties)) {
    if (!(key in merged) && Object.hasOwn(previous, key))
      merged[key] = (previous as Record<string, unknown>)[key];
  }
  return merged;
}
