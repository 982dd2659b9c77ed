import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import { resultValue } from '../../foundation/model/result-value.js';
import type { ToolResult } from '../../foundation/model/tool.js';
import { withDefaults } from '../../foundation/schema/schema-defaults.js';
import { formatIssues, type SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { untilAborted } from '../../foundation/util/until-aborted.js';
import type { CallOptions, ToolScope } from '../tool-scope.js';
import type { CompiledSkill, CompiledStep } from './compile-skill.js';
import { walkResult } from './result-path.js';
import {
  type Expression,
  evaluateExpression,
  isTruthy,
  type PathSegment,
  type Reference,
} from './skill-expression.js';
import { resolveTemplate } from './skill-template.js';

/** What a run needs of the caller's scope: resolving a tool and running it through the pipeline. */
export type SkillScope = Pick<ToolScope, 'get' | 'run'>;

/** How one step of a run went. */
export interface SkillStepRecord {
  id: string;
  tool: string;
  status: 'ok' | 'skipped';
  ms: number;
}

/** A finished run. */
export interface SkillRun {
  /**
   * What the skill tool answers: the `output` mapping's value, or — without `output` — the last
   * executed step's whole result (content blocks included), or `null` when every step was skipped.
   */
  value: unknown;
  steps: SkillStepRecord[];
}

/** A step's state for later references: its result value, or skipped (`null`). */
interface StepState {
  skipped: boolean;
  value: unknown;
}

/**
 * Runs a skill in the caller's scope: inputs are validated against the skill's `input` schema
 * (`validation_input`), every step's tool must exist in the scope before anything runs
 * (`tool_not_found` naming the step), then the steps run one after another in the order written,
 * each through `scope.run` — so the caller's confinement, the pipeline's authorization, input
 * validation, timeouts and middlewares apply to every step as to a direct call.
 *
 * A step whose `when` is falsy is skipped. A step that fails, or whose arguments cannot be bound,
 * fails the run with `chain_step_failed` (details: skill, step id, index, tool, completed step ids,
 * the step's error). The run as a whole is bounded by the skill's `limits`: `timeout` past
 * `timeoutMs`, `sandbox_violation` past `maxToolCalls`. Progress goes to `call.progress`: one
 * update per step before it runs (progress = steps done, total = steps), and a last one when done.
 */
export async function runSkill(
  skill: CompiledSkill,
  rawInputs: unknown,
  scope: SkillScope,
  call: CallOptions,
  validator: SchemaValidator,
): Promise<SkillRun> {
  const inputs = validInputs(skill, rawInputs, validator);
  checkTools(skill, scope);

  const total = skill.steps.length;
  const states = new Map<string, StepState>();
  const records: SkillStepRecord[] = [];
  const completed: string[] = [];
  let current: CompiledStep | undefined;

  const controller = new AbortController();
  const onOuterAbort = () =>
    controller.abort(call.signal?.reason ?? new GatewayError('cancelled', 'The call was cancelled'));
  if (call.signal?.aborted) onOuterAbort();
  call.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const timer = setTimeout(() => {
    const running = current ? ` (running step "${current.id}")` : '';
    controller.abort(
      new GatewayError(
        'timeout',
        `Skill "${skill.name}" did not finish within ${skill.limits.timeoutMs} ms${running}`,
        {
          details: {
            skill: skill.name,
            timeoutMs: skill.limits.timeoutMs,
            step: current?.id ?? null,
            index: current?.index ?? null,
            completed: [...completed],
          },
          // The run spent its whole budget: running it all again at once would spend another.
          retryable: false,
        },
      ),
    );
  }, skill.limits.timeoutMs);

  const resolve = (ref: Reference, expression: Expression): unknown => {
    if (ref.root === 'inputs') return walkInputs(inputs, ref.path);
    const state = states.get(ref.step);
    // Compilation guarantees the step is an earlier one, so it has run or been skipped.
    if (!state || state.skipped) return null;
    return walkResult(state.value, ref, expression);
  };
  const failed = (step: CompiledStep, error: unknown, expression?: string): GatewayError => {
    const cause = toGatewayError(error);
    return new GatewayError(
      'chain_step_failed',
      `Skill "${skill.name}" step "${step.id}" (${step.tool}) failed: [${cause.code}] ${cause.message}`,
      {
        retryable: cause.retryable,
        details: {
          skill: skill.name,
          step: step.id,
          index: step.index,
          tool_id: step.tool,
          completed: [...completed],
          ...(expression === undefined ? {} : { expression }),
          error: cause.toJSON(),
        },
        cause,
      },
    );
  };

  let last: ToolResult | undefined;
  let calls = 0;
  try {
    for (const step of skill.steps) {
      if (controller.signal.aborted) throw toGatewayError(controller.signal.reason);
      current = step;
      const label = `step ${step.index + 1}/${total}: ${step.id}`;
      let runs = true;
      if (step.when) {
        try {
          runs = isTruthy(evaluateExpression(step.when, (ref) => resolve(ref, step.when as Expression)));
        } catch (error) {
          throw failed(step, error, bindingExpression(error));
        }
      }
      call.progress?.({
        progress: step.index,
        total,
        message: runs ? `${label} (${step.tool})` : `${label} skipped`,
      });
      if (!runs) {
        states.set(step.id, { skipped: true, value: null });
        records.push({ id: step.id, tool: step.tool, status: 'skipped', ms: 0 });
        continue;
      }
      if (calls >= skill.limits.maxToolCalls) {
        throw new GatewayError(
          'sandbox_violation',
          `Skill "${skill.name}" may make at most ${skill.limits.maxToolCalls} tool calls per run; step "${step.id}" would exceed it`,
          {
            details: {
              skill: skill.name,
              limit: 'maxToolCalls',
              maxToolCalls: skill.limits.maxToolCalls,
              step: step.id,
              index: step.index,
              completed: [...completed],
            },
          },
        );
      }
      let args: unknown;
      try {
        args = resolveTemplate(step.args, resolve);
      } catch (error) {
        throw failed(step, error, bindingExpression(error));
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        throw failed(
          step,
          new GatewayError('execution_failed', `its arguments resolved to ${describe(args)}, not an object`),
        );
      }
      calls++;
      const started = Date.now();
      let result: ToolResult;
      try {
        result = await untilAborted(
          scope.run(step.tool, args, {
            caller: call.caller,
            signal: controller.signal,
            ...(call.parent ? { parent: call.parent } : {}),
            ...(call.channel ? { channel: call.channel } : {}),
          }),
          controller.signal,
        );
      } catch (error) {
        // The run's own deadline or the caller's cancellation, not the step's fault.
        if (controller.signal.aborted) throw toGatewayError(controller.signal.reason);
        throw failed(step, error);
      }
      states.set(step.id, { skipped: false, value: resultValue(result) });
      records.push({ id: step.id, tool: step.tool, status: 'ok', ms: Date.now() - started });
      completed.push(step.id);
      last = result;
    }
    current = undefined;
    call.progress?.({ progress: total, total, message: 'done' });
    if (!skill.output) return { value: last ?? null, steps: records };
    try {
      return { value: resolveTemplate(skill.output, resolve), steps: records };
    } catch (error) {
      const cause = toGatewayError(error);
      throw new GatewayError('execution_failed', `Skill "${skill.name}" output: ${cause.message}`, {
        details: { skill: skill.name, completed: [...completed], ...(cause.details ?? {}) },
        cause,
      });
    }
  } finally {
    clearTimeout(timer);
    call.signal?.removeEventListener('abort', onOuterAbort);
  }
}

/** Validates the inputs and fills in the `default`s the input schema declares for omitted ones. */
function validInputs(
  skill: CompiledSkill,
  raw: unknown,
  validator: SchemaValidator,
): Record<string, unknown> {
  const inputs = raw === undefined || raw === null ? {} : raw;
  if (typeof inputs !== 'object' || Array.isArray(inputs)) {
    throw new GatewayError('validation_input', `The inputs of skill "${skill.name}" must be a JSON object`, {
      details: { issues: [{ path: '/', message: 'must be object' }] },
    });
  }
  const outcome = validator.validate(skill.input, inputs);
  if (!outcome.valid) {
    throw new GatewayError(
      'validation_input',
      `Invalid inputs for skill "${skill.name}": ${formatIssues(outcome.issues)}`,
      { details: { skill: skill.name, issues: outcome.issues } },
    );
  }
  return withDefaults(skill.input, inputs) as Record<string, unknown>;
}

/** Every step's tool must be visible to the caller before anything runs. */
function checkTools(skill: CompiledSkill, scope: SkillScope): void {
  for (const step of skill.steps) {
    try {
      scope.get(step.tool);
    } catch (error) {
      const cause = toGatewayError(error);
      if (cause.code !== 'tool_not_found') throw cause;
      throw new GatewayError(
        'tool_not_found',
        `Skill "${skill.name}" step "${step.id}" (index ${step.index}) runs "${step.tool}", which does not exist in this scope`,
        { details: { skill: skill.name, step: step.id, index: step.index, tool_id: step.tool } },
      );
    }
  }
}

/** An input path: an omitted (optional) input, or a part of one, is `undefined`. */
function walkInputs(inputs: unknown, path: readonly PathSegment[]): unknown {
  let value = inputs;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

function bindingExpression(error: unknown): string | undefined {
  const details = error instanceof GatewayError ? error.details : undefined;
  return typeof details?.expression === 'string' ? details.expression : undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
