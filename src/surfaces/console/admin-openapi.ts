import { z } from 'zod';
import { ADMIN_API, type AdminOperation, EVENT_STREAM } from './admin-contract.js';

type Json = Record<string, unknown>;

/**
 * The management API (`/api/admin/…`) as OpenAPI 3.1 path items for the REST document, generated
 * from its contract (`ADMIN_API`): request bodies, parameters and answers carry the contract's own
 * schemas, so the document cannot describe a shape the routes do not serve. `errors(body)` gives
 * the error responses of an operation (with or without a body), as the document declares them for
 * every other route.
 */
export function adminPaths(errors: (body: boolean) => Json): Json {
  const paths: Record<string, Json> = {};
  for (const [operationId, operation] of Object.entries(ADMIN_API) as [string, AdminOperation][]) {
    const parameters = [...parametersOf(operation.params, 'path'), ...parametersOf(operation.query, 'query')];
    const item = paths[operation.path] ?? {};
    item[operation.method] = {
      operationId,
      summary: operation.summary,
      tags: ['admin'],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(operation.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: jsonSchema(operation.body) } },
            },
          }
        : {}),
      responses: {
        '200': {
          description: operation.answers,
          content:
            operation.response === EVENT_STREAM
              ? { [EVENT_STREAM]: { schema: { type: 'string' } } }
              : { 'application/json': { schema: jsonSchema(operation.response) } },
        },
        ...errors(operation.body !== undefined),
      },
    };
    paths[operation.path] = item;
  }
  return paths;
}

/**
 * A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), as a client sends it (`io: input`:
 * no `additionalProperties: false` on answers a newer gateway may extend). Its `$schema` would
 * clash with the document's own.
 */
function jsonSchema(schema: z.ZodType): Json {
  let converted = conversions.get(schema);
  if (!converted) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' });
    converted = rest;
    conversions.set(schema, converted);
  }
  return converted;
}

/** Converted once: the document is rebuilt whenever the catalog changes, the contract never does. */
const conversions = new WeakMap<z.ZodType, Json>();

/** The OpenAPI parameters of a path or query object schema: one per key, its description lifted. */
function parametersOf(schema: z.ZodObject | undefined, location: 'path' | 'query'): Json[] {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, field]) => {
    const { description, ...type } = jsonSchema(field as z.ZodType);
    return {
      name,
      in: location,
      // Path parameters are required by definition; query parameters here never are.
      required: location === 'path',
      ...(typeof description === 'string' ? { description } : {}),
      schema: type,
    };
  });
}
