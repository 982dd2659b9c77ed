import type { z } from 'zod';
import { knownKeysAt } from './config-json-schema.js';
import { didYouMean } from './did-you-mean.js';
import { formatConfigPath } from './interpolate.js';
import { describeValue } from './schema-primitives.js';

/** One schema violation, as listed in `details.issues` of a `config_invalid` error. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** How every `config_invalid` message starts: `Invalid config (aperture.yaml)`. */
export function invalidConfigLabel(source: string | undefined): string {
  return source === undefined ? 'Invalid config' : `Invalid config (${source})`;
}

const EXPECTED: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
};

/** Turns one zod issue into user-facing lines; an unknown-keys issue yields one line per key. */
export function describeIssue(issue: z.core.$ZodIssue): ConfigIssue[] {
  const path = formatConfigPath(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => ({
        path: formatConfigPath([...issue.path, key]),
        message: `unknown key${didYouMean(key, knownKeysAt(issue.path))}`,
      }));
    case 'invalid_type': {
      if (issue.input === undefined) return [{ path, message: 'is required' }];
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      return [{ path, message: `expected ${expected}, got ${describeValue(issue.input)}` }];
    }
    case 'invalid_value': {
      const allowed = issue.values.map((value) => JSON.stringify(value)).join(', ');
      const got = issue.input === undefined ? '' : ` (got ${describeValue(issue.input)})`;
      return [{ path, message: `must be one of ${allowed}${got}` }];
    }
    case 'too_small':
      return [{ path, message: describeBound(issue.origin, issue.minimum, issue.inclusive, 'min') }];
    case 'too_big':
      return [{ path, message: describeBound(issue.origin, issue.maximum, issue.inclusive, 'max') }];
    case 'invalid_key': {
      const reasons = issue.issues.map((inner) => inner.message).join(', ');
      const key = issue.path.at(-1);
      return [{ path, message: `invalid key ${JSON.stringify(String(key))}: ${reasons}` }];
    }
    case 'invalid_union': {
      // "Invalid input" says nothing. When every alternative but one fails on the value's kind
      // alone (a mapping where a list goes), the user meant that one: report its issues.
      const meant = issue.errors.filter((branch) => !branch.every(isKindMismatch));
      if (meant.length === 1 && meant[0]) {
        return meant[0].flatMap((inner) => describeIssue({ ...inner, path: [...issue.path, ...inner.path] }));
      }
      return [{ path, message: issue.message }];
    }
    default:
      // `custom` issues carry messages written for users in config-schema.ts.
      return [{ path, message: issue.message }];
  }
}

/** An issue that only says the value is of another kind than expected, at the alternative's root. */
function isKindMismatch(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && issue.path.length === 0;
}

function describeBound(
  origin: string,
  bound: number | bigint,
  inclusive: boolean | undefined,
  side: 'min' | 'max',
): string {
  const limit = Number(bound);
  if (origin === 'string' && side === 'min' && limit === 1) return 'must not be empty';
  if (origin === 'string') return `must be ${side === 'min' ? 'at least' : 'at most'} ${limit} characters`;
  if (origin === 'array') return `must have ${side === 'min' ? 'at least' : 'at most'} ${limit} items`;
  if (side === 'min')
    return inclusive === false ? `must be greater than ${limit}` : `must be at least ${limit}`;
  return inclusive === false ? `must be less than ${limit}` : `must be at most ${limit}`;
}
