import { type ChainStep, chainStepKey, type StepArgsResolver } from '../execution/chain-runner.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import { walkResult } from './skills/result-path.js';
import { IDENTIFIER } from './skills/skill-expression.js';
import {
  compileTemplate,
  resolveTemplate,
  type Template,
  TemplateError,
  templateExpressions,
} from './skills/skill-template.js';

/** `$prev`, `$prev.a.b`, `$prev[0].c`: a whole string standing for the previous step's result. */
const PREV = /^\$prev((?:\.[A-Za-z_][A-Za-z0-9_-]*|\[\d+\])*)$/;

/**
 * Compiles the arguments of a chain's steps with the skills' template language, so `run_chain`
 * steps pass data as skills do: `${{ steps.<id>.result.<path> }}` reads an earlier step's value
 * (by its `id`), and a string that is exactly `$prev.<path>` reads the previous step's. Everything
 * is checked before the first step runs — syntax, step ids (unique, valid), and that every
 * reference names an earlier step — as `validation_input` naming the step and the JSON Pointer.
 */
export function compileChainArgs(steps: readonly ChainStep[]): StepArgsResolver {
  const keys = steps.map((step, index) => chainStepKey(step, index));
  const seen = new Set<string>();
  for (const [index, step] of steps.entries()) {
    if (step.id === undefined) continue;
    if (!IDENTIFIER.test(step.id) || step.id.startsWith('_')) {
      throw invalid(
        index,
        `/steps/${index}/id`,
        `"${step.id}" is not a step id (letters, digits, "_" and "-", not starting with a digit, "-" or "_")`,
      );
    }
    if (seen.has(step.id)) throw invalid(index, `/steps/${index}/id`, `step id "${step.id}" is used twice`);
    seen.add(step.id);
  }
  const templates: Template[] = steps.map((step, index) => {
    const pointer = `/steps/${index}/args`;
    const previous = index > 0 ? keys[index - 1] : undefined;
    let template: Template;
    try {
      template = compileTemplate(rewritePrevious(step.args ?? {}, previous, index, pointer), pointer);
    } catch (error) {
      if (error instanceof TemplateError) throw invalid(index, error.pointer, error.message);
      throw error;
    }
    for (const { pointer: at, expression } of templateExpressions(template, pointer)) {
      for (const ref of expression.references) {
        if (ref.root === 'inputs') throw invalid(index, at, 'a chain has no inputs; use steps.<id>.result');
        const target = keys.indexOf(ref.step);
        if (target < 0 || target >= index) {
          throw invalid(
            index,
            at,
            `steps.${ref.step} is not an earlier step of this chain (${keys.slice(0, index).join(', ') || 'none'})`,
          );
        }
      }
    }
    return template;
  });
  return (index, results) => {
    const template = templates[index];
    if (!template) return {};
    const value = resolveTemplate(template, (ref, expression) => {
      if (ref.root !== 'steps' || !results.has(ref.step)) {
        throw new GatewayError(
          'execution_failed',
          `\${{ ${expression.source} }}: step "${ref.root === 'steps' ? ref.step : 'inputs'}" has no result (it failed)`,
          {
            details: { expression: expression.source },
          },
        );
      }
      return walkResult(results.get(ref.step), ref, expression);
    });
    return value as Record<string, unknown>;
  };
}

/** Replaces every whole-string `$prev…` with the template reading the previous step. */
function rewritePrevious(
  value: unknown,
  previous: string | undefined,
  index: number,
  pointer: string,
): unknown {
  if (typeof value === 'string') {
    const match = PREV.exec(value);
    if (!match) return value;
    if (previous === undefined)
      throw invalid(index, pointer, '$prev in the first step: there is no previous step');
    return `\${{ steps.${previous}.result${match[1] ?? ''} }}`;
  }
  if (Array.isArray(value))
    return value.map((item, i) => rewritePrevious(item, previous, index, `${pointer}/${i}`));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(out, key, {
        value: rewritePrevious(item, previous, index, `${pointer}/${key}`),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

function invalid(step: number, pointer: string, reason: string): GatewayError {
  return new GatewayError('validation_input', `Step ${step}: ${pointer}: ${reason}`, {
    details: { step, issues: [{ path: pointer, message: reason }] },
  });
}
