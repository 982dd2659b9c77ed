import { z } from 'zod';
import { mergeOverride, type ToolOverride } from '../catalog/tool-overrides.js';
import { isValidNamespace, isValidToolName } from '../foundation/model/tool-id.js';
import { SchemaValidator } from '../foundation/schema/schema-validator.js';
import { isRecord } from '../foundation/util/is-record.js';
import { bool, int, looseObject, nonEmptyString } from './schema-primitives.js';

/*
 * The `overrides` section: per-tool customisation (names, descriptions, annotations, schema
 * patches, fixed and default arguments, examples, metadata), keyed `*`, `namespace` or
 * `namespace:tool`.
 */

/** `*`, `namespace`, `namespace:tool` or `namespace:tool:version`. */
function isOverrideKey(key: string): boolean {
  if (key === '*') return true;
  const [namespace, ...names] = key.split(':');
  return (
    namespace !== undefined &&
    isValidNamespace(namespace) &&
    names.length <= 2 &&
    names.every(isValidToolName)
  );
}

let metaValidator: SchemaValidator | undefined;

/** The patch without its deletions (`null`s): the part that must itself be valid JSON Schema. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/**
 * A `__proto__` key at the top of a patch is refused by name: the record schema would drop it
 * without a word (it cannot be set on a plain object), and a patch that loads without an error
 * must be the patch that applies. Deeper down it is plain data, as every key of a merge patch.
 */
function refuseProtoKey(value: unknown, ctx: z.RefinementCtx): unknown {
  if (isRecord(value) && Object.hasOwn(value, '__proto__')) {
    ctx.addIssue({
      code: 'custom',
      input: value,
      path: ['__proto__'],
      message: 'a "__proto__" key is not allowed at the top of a schema patch (it is no JSON Schema keyword)',
    });
  }
  return value;
}

/**
 * A merge patch on a tool schema, checked at load rather than at the first call: MCP requires an
 * object root, so it may not change `type`, and what it adds must be valid JSON Schema (a typo such
 * as `type: integr` would otherwise fail every call).
 */
const schemaPatch = () =>
  z.preprocess(refuseProtoKey, looseObject()).superRefine((patch, ctx) => {
    if ('type' in patch && patch.type !== 'object') {
      ctx.addIssue({
        code: 'custom',
        message: 'a patch may not change the root "type": MCP tool schemas are objects',
      });
      return;
    }
    metaValidator ??= new SchemaValidator();
    const problem = metaValidator.schemaProblem(withoutNulls(patch) as Record<string, unknown>);
    if (problem !== undefined)
      ctx.addIssue({ code: 'custom', message: `not a valid JSON Schema patch: ${problem}` });
  });

const overrideSchema = z.strictObject({
  name: z
    .string()
    .refine(isValidToolName, { error: 'must be a tool name (no spaces or ":")' })
    .optional()
    .describe('A new name for the tool (its namespace stays).'),
  title: z.string().optional().describe('A new title.'),
  description: z.string().optional().describe('A new description (what search and the agent read).'),
  hidden: bool().optional().describe('Neither listed, searched nor runnable.'),
  annotations: z
    .strictObject({
      title: z.string().optional().describe('A display title for the tool (`annotations.title`).'),
      readOnlyHint: bool().optional().describe('The tool only reads.'),
      destructiveHint: bool().optional().describe('The tool may destroy or overwrite.'),
      idempotentHint: bool()
        .optional()
        .describe('Calling it again with the same arguments has no further effect (retries are safe).'),
      openWorldHint: bool().optional().describe('The tool reaches the outside world.'),
    })
    .optional()
    .describe("MCP annotations over the tool's own (each hint given wins)."),
  tags: z
    .array(z.string())
    .optional()
    .describe("Tags for search filters and toolsets, added to the tool's own."),
  timeoutMs: int(1).optional().describe("Per-tool call timeout, over the server's `timeoutMs`."),
  cache: z
    .union([
      bool(),
      z.strictObject({
        enabled: bool()
          .optional()
          .describe('true or false over the default (read-only or idempotent tools are cached).'),
        ttlMs: int(1).optional().describe("A time to live of this tool's own results, over `cache.ttlMs`."),
      }),
    ])
    .optional()
    .describe(
      "Result caching: true or false over the default (read-only or idempotent tools are cached), or `{ enabled, ttlMs }` (a time to live of this tool's own, over `cache.ttlMs`).",
    ),
  args: z
    .strictObject({
      fixed: looseObject()
        .optional()
        .describe('Values forced on every call; the caller cannot override them (and does not see them).'),
      defaults: looseObject().optional().describe('Values used when the caller omits the argument.'),
    })
    .optional()
    .describe(
      'Argument defaults (`defaults`, used when the caller leaves them out) and fixed values (`fixed`, always sent and hidden from the agent).',
    ),
  inputSchema: schemaPatch()
    .optional()
    .describe('A JSON merge patch (RFC 7396) on the downstream input schema; `null` removes a key.'),
  outputSchema: schemaPatch()
    .optional()
    .describe('A JSON merge patch on the output schema (on `{ type: object }` when the tool declares none).'),
  outputAdapter: z
    .strictObject({
      text: nonEmptyString().describe(
        "The field of the structured result that holds the tool's text answer.",
      ),
    })
    .optional()
    .describe(
      'A text answer as structured content: `{ text: <field> }` puts the text in that field (else JSON text is parsed).',
    ),
  alternatives: z
    .array(
      z.string().refine((id) => /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}:[^\s:]+(:[^\s:]+)?$/.test(id), {
        error: 'must be a tool id "namespace:name"',
      }),
    )
    .optional()
    .describe('Tool ids that do the same job: calls fail over to them, in order, on `backend_unavailable`.'),
  examples: z
    .array(
      z.strictObject({
        title: nonEmptyString().describe('What the example does, in a few words.'),
        args: looseObject().default({}).describe('The arguments of the example call.'),
        resultHint: z.string().optional().describe('What the result looks like, in a few words.'),
      }),
    )
    .optional()
    .describe(
      "Worked examples shown by `describe_tool` (level `full`) and `list_tool_examples`; replace the tool's own.",
    ),
  metadata: z
    .strictObject({
      category: nonEmptyString()
        .optional()
        .describe(
          "The tool's category: `search_tools`'s `category` filter, and words search reads with the tags.",
        ),
      cost: z
        .number()
        .nonnegative()
        .optional()
        .describe("Relative cost of one call (unitless, lower is cheaper): `search_tools`'s `max_cost`."),
      latencyMs: int(0)
        .optional()
        .describe("Typical call duration in ms: `search_tools`'s `max_latency_ms`."),
      sideEffects: bool()
        .optional()
        .describe("Whether a call changes anything: `search_tools`'s `allow_side_effects`."),
      notes: z.string().optional().describe('Shown by `describe_tool` at level `full`.'),
    })
    .optional()
    .describe('Facts search filters, ranking and describe read.'),
});

const overrideRules = z.record(
  z.string().refine(isOverrideKey, { error: 'must be "*", "namespace" or "namespace:tool"' }),
  overrideSchema,
);

/**
 * `overrides`: one mapping of rules, or a list of mappings and file/folder paths. `loadConfig`
 * reads the paths (relative to the config file) and puts their rules in their place, so a path
 * still here was not read — a config parsed from a value rather than loaded from a file.
 * Later entries merge over earlier ones for the same key; "ns:tool" > "ns" > "*" holds across them.
 */
/** A path left in `overrides`: only `loadConfig`, which knows the config file's folder, reads them. */
const unreadOverrideFile = () =>
  z.string().transform((path, ctx) => {
    ctx.addIssue({
      code: 'custom',
      input: path,
      message: `the overrides file "${path}" can only be read when the config is loaded from a file`,
    });
    return z.NEVER;
  });

export const overridesSection = z
  .union([overrideRules, unreadOverrideFile(), z.array(z.union([overrideRules, unreadOverrideFile()]))])
  .default({})
  .describe(
    'Per-tool customisation keyed `*`, `namespace` or `namespace:tool`: one mapping, or a list of mappings and files or folders of them (relative to the config file), later ones merging over earlier ones.',
  )
  .transform((value) => {
    // One mapping is the common case: a list of one.
    const layers = Array.isArray(value) ? value : [value];
    const merged: Record<string, ToolOverride> = {};
    for (const layer of layers) {
      for (const [key, rule] of Object.entries(layer)) {
        const earlier = merged[key];
        merged[key] = earlier ? mergeOverride(earlier, rule) : rule;
      }
    }
    return merged;
  });

/** Per-tool customisation, keyed `*`, `namespace` or `namespace:tool`. */
export type ToolOverrideConfig = z.output<typeof overrideSchema>;
