import { GatewayError } from '../../foundation/model/gateway-error.js';
import { type Expression, formatReference, type Reference } from './skill-expression.js';

/** A path into a step's result; a part that is not there is an error naming the expression. */
export function walkResult(result: unknown, ref: Reference, expression: Expression): unknown {
  let value = result;
  for (const [index, segment] of ref.path.entries()) {
    const at = formatReference({ ...ref, path: ref.path.slice(0, index) } as Reference);
    const problem =
      typeof segment === 'number'
        ? !Array.isArray(value)
          ? `${at} is ${describe(value)}, not a list`
          : segment >= value.length
            ? `${at} has ${value.length} items, no [${segment}]`
            : undefined
        : typeof value !== 'object' || value === null || Array.isArray(value)
          ? `${at} is ${describe(value)}, not an object`
          : !Object.hasOwn(value, segment)
            ? `${at} has no "${segment}"${keysHint(value)}`
            : undefined;
    if (problem) {
      throw new GatewayError('execution_failed', `\${{ ${expression.source} }}: ${problem}`, {
        details: { expression: expression.source, reference: formatReference(ref) },
      });
    }
    value = (value as Record<string | number, unknown>)[segment];
  }
  return value;
}

function keysHint(value: object): string {
  const keys = Object.keys(value);
  if (keys.length === 0) return ' (it is empty)';
  const shown = keys.slice(0, 10).join(', ');
  return ` (it has ${shown}${keys.length > 10 ? ', …' : ''})`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
