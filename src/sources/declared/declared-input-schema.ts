import type { JsonSchema } from '../../foundation/model/tool.js';
import { checkTemplateNames, type TemplateUse } from './arg-template.js';

/**
 * The input schema of a declared tool: the one written in the config, else one inferred from the
 * placeholders its templates use — each a string, required when `required(use)` says so — and the
 * templates checked against it (an unknown name is `config_invalid` naming the key).
 */
export function declaredInputSchema(
  written: JsonSchema | undefined,
  uses: readonly TemplateUse[],
  label: string,
  infer: (use: TemplateUse) => { schema: JsonSchema; required: boolean },
): JsonSchema {
  if (written !== undefined) {
    checkTemplateNames(uses, new Set(Object.keys(propertiesOf(written))), label);
    return written;
  }
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  for (const use of uses) {
    const inferred = infer(use);
    properties[use.name] ??= inferred.schema;
    if (inferred.required) required.add(use.name);
  }
  return {
    type: 'object',
    properties,
    ...(required.size > 0 ? { required: [...required] } : {}),
    additionalProperties: false,
  };
}

/** The `properties` of an object schema (none when it has no such map). */
export function propertiesOf(schema: JsonSchema): Record<string, unknown> {
  const properties = schema.properties;
  return typeof properties === 'object' && properties !== null && !Array.isArray(properties)
    ? (properties as Record<string, unknown>)
    : {};
}
