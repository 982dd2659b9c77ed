import type { JsonSchema } from '../model/tool.js';
import { inlineMovedRefs } from '../schema/schema-refs.js';
import type { WarningCollector } from './conversion.js';
import { cloneJson, isRecord, mergeAllOf, resolveLocalRef, schemaTypes } from './schema-helpers.js';

const COMBINATORS = ['allOf', 'anyOf', 'oneOf'] as const;

/** How `toObjectRootSchema` treats what the target format refuses at the root. */
export interface ObjectRootOptions {
  /**
   * `flatten` (OpenAI, Anthropic, Gemini, which refuse combinators at the root) folds a root
   * `anyOf`/`oneOf`/`allOf` into one object; `keep` (MCP, where they are valid next to
   * `type: "object"`) leaves them. Default `flatten`.
   */
  combinators?: 'keep' | 'flatten';
  /** Further root keywords the target refuses (OpenAI: `enum`, `not`); removed with a warning. */
  forbidden?: readonly string[];
}

/**
 * A tool's input schema as every provider wants it: one object schema at the root. MCP, OpenAI,
 * Anthropic and Gemini all reject a root that is not `type: "object"`, and OpenAI and Anthropic
 * reject `anyOf`/`oneOf`/`allOf` at the root. Lossless rewrites happen silently (a root `$ref`
 * followed, a mergeable `allOf` merged, a missing `type` added); anything else is flattened into
 * one object whose properties are the union of the branches, with a warning.
 */
export function toObjectRootSchema(
  schema: JsonSchema,
  warnings: WarningCollector,
  options: ObjectRootOptions = {},
): JsonSchema {
  // Rewriting the root moves schemas (a union's branches into `properties`…): a reference into a
  // part that moved is inlined, so it keeps naming what it named.
  return inlineMovedRefs(schema, objectRoot(schema, warnings, options));
}

function objectRoot(schema: JsonSchema, warnings: WarningCollector, options: ObjectRootOptions): JsonSchema {
  let root = cloneJson(schema);
  // zod-to-json-schema and others emit `{ $ref: "#/definitions/Args", definitions: {…} }`.
  if (typeof root.$ref === 'string') {
    const target = resolveLocalRef(root, root.$ref);
    if (isRecord(target) && target !== root) {
      const { $ref: _ref, ...rest } = root;
      root = { ...cloneJson(target), ...rest };
    }
  }
  if (Array.isArray(root.allOf)) root = mergeAllOf(root, root) ?? root;
  if (options.combinators !== 'keep') {
    for (const keyword of COMBINATORS) {
      if (Array.isArray(root[keyword])) root = flatten(root, keyword, warnings);
    }
  }
  for (const keyword of options.forbidden ?? []) {
    if (keyword in root) {
      warnings.add(`removed "${keyword}" from the root (refused there by this format)`);
      delete root[keyword];
    }
  }
  const types = schemaTypes(root);
  if (types.length === 0) {
    root.type = 'object';
  } else if (!types.includes('object')) {
    warnings.add(
      `root type ${JSON.stringify(root.type)} is not an object; replaced by an empty object schema`,
    );
    return { type: 'object', properties: {} };
  } else if (types.length > 1) {
    warnings.add(`root type ${JSON.stringify(root.type)} narrowed to "object"`);
    root.type = 'object';
  }
  return root;
}

/** Folds a root combinator into the root object: union of properties, required per keyword. */
function flatten(
  root: JsonSchema,
  keyword: (typeof COMBINATORS)[number],
  warnings: WarningCollector,
): JsonSchema {
  const { [keyword]: raw, ...rest } = root;
  const branches = (raw as unknown[])
    .map((branch) =>
      isRecord(branch) && typeof branch.$ref === 'string' ? resolveLocalRef(root, branch.$ref) : branch,
    )
    .filter(isRecord);
  const properties: Record<string, unknown> = isRecord(rest.properties) ? { ...rest.properties } : {};
  const own = Array.isArray(rest.required) ? rest.required.filter((r) => typeof r === 'string') : [];
  const perBranch: string[][] = [];
  for (const branch of branches) {
    if (isRecord(branch.properties)) {
      for (const [name, value] of Object.entries(branch.properties)) {
        if (!(name in properties)) properties[name] = value;
      }
    }
    perBranch.push(
      Array.isArray(branch.required) ? branch.required.filter((r) => typeof r === 'string') : [],
    );
  }
  // allOf: every branch applies, so all their required names do; anyOf/oneOf: only the names
  // every branch requires are certain.
  const fromBranches =
    keyword === 'allOf'
      ? [...new Set(perBranch.flat())]
      : (perBranch[0] ?? []).filter((name) => perBranch.every((list) => list.includes(name)));
  const required = [...new Set([...own, ...fromBranches])].filter((name) => name in properties);
  warnings.add(`root "${keyword}" flattened into one object; its branches are no longer enforced`);
  const out: JsonSchema = { ...rest, type: 'object', properties };
  if (required.length > 0) out.required = required;
  else delete out.required;
  return out;
}
