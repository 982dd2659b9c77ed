import { z } from 'zod';
import { GatewayError } from '../model/gateway-error.js';
import type { JsonSchema } from '../model/tool.js';
import { formatIssues, type SchemaIssue } from './schema-validator.js';

/**
 * The JSON Schema to publish for a zod input schema (a metatool's arguments, a request body).
 * The schema describes what a caller may send (`io: 'input'`: a field with a default is
 * optional and shows the default). Normalised so it reads as a hand-written schema would:
 * - no `$schema` key (`tools/list` entries never carried one; the dialect is 2020-12 either way);
 * - an open object (`z.looseObject({})`) is `additionalProperties: true`, without empty `properties`;
 * - zod's safe-integer bounds on `z.int()` are left out (no caller needs them spelled out);
 * - `type` comes first and `description`, `default` last in each schema, as the hand-written schemas had them.
 */
export function publishedInputSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'throw',
    override: ({ jsonSchema }) => normalise(jsonSchema as Record<string, unknown>),
  }) as Record<string, unknown>;
  return json;
}

function normalise(node: Record<string, unknown>): void {
  const extra = node.additionalProperties;
  if (typeof extra === 'object' && extra !== null && Object.keys(extra).length === 0) {
    node.additionalProperties = true;
    const properties = node.properties;
    if (typeof properties === 'object' && properties !== null && Object.keys(properties).length === 0) {
      delete node.properties;
    }
  }
  if (node.type === 'integer') {
    if (node.minimum === Number.MIN_SAFE_INTEGER) delete node.minimum;
    if (node.maximum === Number.MAX_SAFE_INTEGER) delete node.maximum;
  }
  // Rebuilt in place (the override must mutate): `type` first, then the rest, `description` and `default` last.
  const entries = Object.entries(node);
  const rank = (key: string) => (key === 'type' ? 0 : key === 'description' ? 2 : key === 'default' ? 3 : 1);
  for (const [key] of entries) delete node[key];
  for (const [key, value] of entries.sort(([a], [b]) => rank(a) - rank(b))) node[key] = value;
}

/**
 * Parses `value` with `schema`, giving the typed (defaults filled in) value. Bad input is the
 * caller's `validation_input`, naming each failing field the way the JSON Schema validator does
 * (`/field: message`), so a caller sees the same kind of error whichever check caught it.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const outcome = schema.safeParse(value);
  if (outcome.success) return outcome.data;
  const issues = outcome.error.issues.flatMap(toIssues);
  throw new GatewayError('validation_input', `${what}: ${formatIssues(issues)}`, {
    details: { issues },
  });
}

function toIssues(issue: z.core.$ZodIssue): SchemaIssue[] {
  const path = issue.path.map((p) => `/${String(p)}`).join('');
  // One issue per unknown key, named like the JSON Schema validator names it.
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      path: `${path}/${key}`,
      message: 'must NOT have additional properties',
    }));
  }
  return [{ path: path || '/', message: issue.message }];
}
