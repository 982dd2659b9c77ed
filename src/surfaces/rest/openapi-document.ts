import type { ToolScope } from '../../composition/tool-scope.js';
import { GATEWAY_ERROR_CODES } from '../../foundation/error-codes.js';
import { flatToolName } from '../../foundation/flat-name.js';
import type { JsonSchema, Tool } from '../../foundation/tool.js';

const ERROR = {
  type: 'object',
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: [...GATEWAY_ERROR_CODES] },
        message: { type: 'string' },
        tool_id: { type: 'string' },
        retryable: { type: 'boolean' },
        details: { type: 'object' },
      },
      required: ['code', 'message', 'retryable'],
    },
  },
  required: ['success', 'error'],
};

const SUMMARY = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    namespace: { type: 'string' },
    description: { type: 'string' },
    tags: { type: 'array', items: { type: 'string' } },
    score: { type: 'number' },
  },
  required: ['id', 'name', 'namespace', 'description', 'tags'],
};

const PAGE = {
  type: 'object',
  properties: {
    tools: { type: 'array', items: { $ref: '#/components/schemas/ToolSummary' } },
    nextCursor: { type: 'string' },
  },
  required: ['tools'],
};

const errorResponses = {
  '400': { $ref: '#/components/responses/Error' },
  '404': { $ref: '#/components/responses/Error' },
};

/**
 * The OpenAPI 3.1 document of the REST API: the fixed routes, plus one operation per visible tool
 * (`POST /api/tools/{namespace:name}`, operationId = the tool's flat name, request body = its input
 * schema, response = its output schema when it has one). Regenerated when the catalog changes.
 */
export function openApiDocument(
  scope: ToolScope,
  info: { name: string; version: string },
  auth?: DocumentAuth,
): () => Record<string, unknown> {
  let cached: { version: number; doc: Record<string, unknown> } | undefined;
  return () => {
    if (cached?.version !== scope.version)
      cached = { version: scope.version, doc: build(scope.tools(), info, auth) };
    return cached.doc;
  };
}

/** The credentials the API requires (declared as security schemes); absent: none. */
export interface DocumentAuth {
  apiKeys: boolean;
  jwt: boolean;
}

/** Security schemes and the requirement that any one of them is met. */
function security(auth: DocumentAuth | undefined): {
  schemes: Record<string, unknown>;
  requirement: unknown[];
} {
  const schemes: Record<string, unknown> = {};
  if (auth?.apiKeys || auth?.jwt) {
    schemes.bearer = {
      type: 'http',
      scheme: 'bearer',
      ...(auth.jwt && !auth.apiKeys ? { bearerFormat: 'JWT' } : {}),
      description: auth.jwt ? 'A JWT from the configured issuer, or an API key' : 'An API key',
    };
  }
  if (auth?.apiKeys) schemes.apiKey = { type: 'apiKey', in: 'header', name: 'X-API-Key' };
  return { schemes, requirement: Object.keys(schemes).map((name) => ({ [name]: [] })) };
}

function build(
  tools: readonly Tool[],
  info: { name: string; version: string },
  auth: DocumentAuth | undefined,
): Record<string, unknown> {
  const paths: Record<string, unknown> = {
    '/api/tools': {
      get: {
        operationId: 'listTools',
        summary: 'List or search tools (summaries, no schemas)',
        parameters: [
          query('q', 'Search query; without it, tools are listed in id order'),
          query('namespace', 'Only this namespace'),
          query('tags', 'Only tools with all these tags (comma-separated)'),
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100 } },
          query('cursor', 'nextCursor of the previous page'),
        ],
        responses: {
          '200': json('A page of tools', { $ref: '#/components/schemas/ToolPage' }),
          ...errorResponses,
        },
      },
    },
    '/api/search': {
      post: {
        operationId: 'searchTools',
        summary: 'Search tools with a JSON body (query and filters)',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
            },
          },
        },
        responses: {
          '200': json('A page of tools', { $ref: '#/components/schemas/ToolPage' }),
          ...errorResponses,
        },
      },
    },
    '/api/tools/{id}': {
      get: {
        operationId: 'describeTool',
        summary: 'One tool with its schemas',
        parameters: [
          {
            name: 'id',
            in: 'path',
            required: true,
            schema: { type: 'string' },
            description: 'Tool id, namespace:name',
          },
          { name: 'detail', in: 'query', schema: { type: 'string', enum: ['summary', 'schema', 'full'] } },
        ],
        responses: { '200': json('The tool', { type: 'object' }), ...errorResponses },
      },
    },
  };
  const schemas: Record<string, unknown> = { ToolSummary: SUMMARY, ToolPage: PAGE, Error: ERROR };
  for (const tool of tools) paths[`/api/tools/${tool.id}`] = { post: toolOperation(tool, schemas) };
  const secured = security(auth);
  return {
    openapi: '3.1.0',
    info: { title: `${info.name} REST API`, version: info.version },
    ...(secured.requirement.length > 0 ? { security: secured.requirement } : {}),
    paths,
    components: {
      schemas,
      responses: {
        Error: json('A failure with a stable error code', { $ref: '#/components/schemas/Error' }),
      },
      ...(secured.requirement.length > 0 ? { securitySchemes: secured.schemes } : {}),
    },
  };
}

function toolOperation(tool: Tool, schemas: Record<string, unknown>): Record<string, unknown> {
  const operationId = flatToolName(tool.namespace, tool.name);
  const stripDialect = (schema: JsonSchema) => embed(schema, `${operationId}__`, schemas);
  const result: JsonSchema = tool.outputSchema
    ? {
        type: 'object',
        properties: {
          content: { type: 'array' },
          structuredContent: stripDialect(tool.outputSchema),
        },
      }
    : { type: 'object', properties: { content: { type: 'array' } } };
  return {
    operationId,
    summary: tool.title ?? tool.name,
    description: tool.description,
    tags: [tool.namespace],
    requestBody: {
      required: true,
      content: { 'application/json': { schema: stripDialect(tool.inputSchema) } },
    },
    responses: {
      '200': json('The tool result', {
        type: 'object',
        properties: { success: { const: true }, result },
        required: ['success', 'result'],
      }),
      default: { $ref: '#/components/responses/Error' },
    },
  };
}

/**
 * A tool schema placed inside the document. Its `$schema`/`$id` would clash with the document's,
 * and its local `$ref`s (`#/$defs/X`) would resolve against the document root: definitions move to
 * `components/schemas` under a per-tool prefix and the references follow them.
 */
function embed(schema: JsonSchema, prefix: string, schemas: Record<string, unknown>): JsonSchema {
  const { $schema: _s, $id: _i, $defs, definitions, ...rest } = schema;
  const defs = { ...(definitions as Record<string, unknown>), ...($defs as Record<string, unknown>) };
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      out[key] =
        key === '$ref' && typeof inner === 'string'
          ? inner.replace(/^#\/(\$defs|definitions)\//, `#/components/schemas/${prefix}`)
          : rewrite(inner);
    }
    return out;
  };
  for (const [name, def] of Object.entries(defs)) schemas[`${prefix}${name}`] = rewrite(def);
  return rewrite(rest) as JsonSchema;
}

function query(name: string, description: string) {
  return { name, in: 'query', description, schema: { type: 'string' } };
}

function json(description: string, schema: unknown) {
  return { description, content: { 'application/json': { schema } } };
}
