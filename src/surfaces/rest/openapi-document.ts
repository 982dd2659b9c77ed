import type { ToolScope } from '../../composition/tool-scope.js';
import { GATEWAY_ERROR_CODES } from '../../foundation/model/error-codes.js';
import { ERROR_CODE_TABLE } from '../../foundation/model/error-tables.js';
import { flatToolName } from '../../foundation/model/flat-name.js';
import type { JsonSchema, Tool } from '../../foundation/model/tool.js';
import { toDraft2020 } from '../../foundation/schema/schema-dialect.js';
import { localRefPointer, mapRefs, pointerSegment } from '../../foundation/schema/schema-refs.js';
import { adminPaths } from '../console/admin-openapi.js';

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
    explanation: {
      type: 'object',
      description:
        'With explain: why the tool ranks there (lexical terms and fields, server, vector and learned shares, failures); see README',
    },
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

/** An error response per HTTP status, its description naming the codes the table maps to it. */
function errorResponse(status: number): Record<string, unknown> {
  const codes = GATEWAY_ERROR_CODES.filter((code) => ERROR_CODE_TABLE[code].httpStatus === status);
  return json(`A failure: ${codes.join(', ')}`, { $ref: '#/components/schemas/Error' });
}

/**
 * The 4xx statuses an operation really answers with: `400` (bad query or body), `404` (no such
 * tool, no such `?toolset=`), `413`/`415` for operations that read a body, and `401`/`403` when the
 * API requires credentials. Anything else (502, 503, 504…) is the `default` error response.
 */
function errorResponses(options: {
  body: boolean;
  secured: boolean;
  rateLimited?: boolean;
}): Record<string, unknown> {
  const statuses = [
    400,
    ...(options.secured ? [401, 403] : []),
    404,
    ...(options.body ? [413, 415] : []),
    ...(options.rateLimited ? [429] : []),
  ];
  const responses: Record<string, unknown> = {};
  for (const status of statuses) responses[String(status)] = { $ref: `#/components/responses/E${status}` };
  responses.default = { $ref: '#/components/responses/Error' };
  return responses;
}

/**
 * The OpenAPI 3.1 document of the REST API: the fixed routes, plus one operation per visible tool
 * (`POST /api/tools/{namespace:name}`, operationId = the tool's flat name, request body = its input
 * schema, response = its output schema when it has one). Regenerated when the catalog changes.
 */
export function openApiDocument(
  scope: ToolScope,
  info: { name: string; version: string },
  auth?: DocumentAuth,
  policies: DocumentPolicies = {},
): () => Record<string, unknown> {
  let cached: { version: number; doc: Record<string, unknown> } | undefined;
  return () => {
    if (cached?.version !== scope.version)
      cached = { version: scope.version, doc: build(scope.tools(), info, auth, policies) };
    return cached.doc;
  };
}

/** Call policies that add answers to tool runs. */
export interface DocumentPolicies {
  /** `rateLimits` are configured: a run may be answered 429 `rate_limited`. */
  rateLimited?: boolean;
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
  policies: DocumentPolicies,
): Record<string, unknown> {
  const secured = security(auth);
  const isSecured = secured.requirement.length > 0;
  const errors = (body: boolean) => errorResponses({ body, secured: isSecured });
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
          {
            name: 'explain',
            in: 'query',
            schema: { type: 'boolean' },
            description: "With q: add an explanation to each result (default: the config's search.explain)",
          },
        ],
        responses: {
          '200': json('A page of tools', { $ref: '#/components/schemas/ToolPage' }),
          ...errors(false),
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
              schema: {
                type: 'object',
                properties: { query: { type: 'string' }, explain: { type: 'boolean' } },
                required: ['query'],
              },
            },
          },
        },
        responses: {
          '200': json('A page of tools', { $ref: '#/components/schemas/ToolPage' }),
          ...errors(true),
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
        responses: { '200': json('The tool', { type: 'object' }), ...errors(false) },
      },
    },
  };
  // The management API (the console's, trust, reload), generated from its contract: scriptable,
  // so documented like the rest. A config refused by a reload is `config_invalid` (500): the
  // `default` error response.
  Object.assign(paths, adminPaths(errors));
  const schemas: Record<string, unknown> = { ToolSummary: SUMMARY, ToolPage: PAGE, Error: ERROR };
  for (const tool of tools)
    paths[`/api/tools/${tool.id}`] = {
      post: toolOperation(
        tool,
        schemas,
        errorResponses({ body: true, secured: isSecured, rateLimited: policies.rateLimited === true }),
      ),
    };
  const responses: Record<string, unknown> = {
    Error: json('A failure with a stable error code', { $ref: '#/components/schemas/Error' }),
  };
  for (const status of [400, 401, 403, 404, 413, 415, 429]) {
    if ((status === 401 || status === 403) && !isSecured) continue;
    if (status === 429 && policies.rateLimited !== true) continue;
    responses[`E${status}`] = errorResponse(status);
  }
  return {
    openapi: '3.1.0',
    info: { title: `${info.name} REST API`, version: info.version },
    // Relative to where the document is served: right behind a proxy or on any port.
    servers: [{ url: '/', description: 'This gateway' }],
    // Declared even when empty: "no credentials needed" is an answer, not an omission.
    security: secured.requirement,
    paths,
    components: {
      schemas,
      responses,
      ...(isSecured ? { securitySchemes: secured.schemes } : {}),
    },
  };
}

function toolOperation(
  tool: Tool,
  schemas: Record<string, unknown>,
  errors: Record<string, unknown>,
): Record<string, unknown> {
  const operationId = flatToolName(tool.namespace, tool.name);
  // Where each schema's root lands in the document: its own `#/…` references are rewritten to it.
  const operation = `#/paths/${fragment(pointerSegment(`/api/tools/${tool.id}`))}/post`;
  const input = embedSchema(
    tool.inputSchema,
    `${operation}/requestBody/content/application~1json/schema`,
    `${operationId}__`,
    schemas,
  );
  const result: JsonSchema = tool.outputSchema
    ? {
        type: 'object',
        properties: {
          content: { type: 'array' },
          structuredContent: embedSchema(
            tool.outputSchema,
            `${operation}/responses/200/content/application~1json/schema/properties/result/properties/structuredContent`,
            `${operationId}__output__`,
            schemas,
          ),
        },
      }
    : { type: 'object', properties: { content: { type: 'array' } } };
  return {
    operationId,
    summary: tool.title ?? tool.name,
    description: tool.description,
    tags: [tool.namespace],
    requestBody: { required: true, content: { 'application/json': { schema: input } } },
    responses: {
      '200': json('The tool result', {
        type: 'object',
        properties: { success: { const: true }, result },
        required: ['success', 'result'],
      }),
      ...errors,
    },
  };
}

/**
 * A tool schema as placed at `at` (a JSON Pointer fragment into the document). A tool schema is
 * its own document: its `$schema`/`$id` would clash with the OpenAPI document's, and every local
 * `$ref` (`#/$defs/X`, draft-07 `#/definitions/X`, sequential-thinking's
 * `#/properties/nextThoughtNeeded`, `#` itself, an `$anchor`) would resolve against the OpenAPI
 * root. Definitions become components of their own (named `<prefix><name>`, so generators name
 * the types), and each reference is rewritten to the place its target went — into a component,
 * or into the schema where it now stands; recursion stays a reference, never an expansion. A
 * reference that resolves nowhere (a missing pointer, another document) is dropped: it could
 * never have been followed, and the document must stay valid. Older dialects' keywords are
 * rewritten in 2020-12 (`toDraft2020`).
 */
function embedSchema(
  schema: JsonSchema,
  at: string,
  prefix: string,
  schemas: Record<string, unknown>,
): JsonSchema {
  const { $schema: _s, $id: _i, $defs, definitions, ...rest } = schema;
  const hoisted = new Map<string, { component: string; schema: unknown }>();
  for (const [keyword, defs] of [
    ['definitions', definitions],
    ['$defs', $defs],
  ] as const) {
    if (typeof defs !== 'object' || defs === null || Array.isArray(defs)) continue;
    for (const [defName, def] of Object.entries(defs)) {
      const component = uniqueName(`${prefix}${defName.replace(/[^A-Za-z0-9._-]/g, '_')}`, schemas);
      schemas[component] = true; // reserved before the next definition takes a name
      hoisted.set(`/${keyword}/${pointerSegment(defName)}`, { component, schema: def });
    }
  }
  const relocate = (ref: string): string | undefined => {
    const pointer = localRefPointer(schema, ref);
    if (pointer === undefined) return undefined;
    for (const [from, { component }] of hoisted) {
      if (pointer === from || pointer.startsWith(`${from}/`))
        return `#/components/schemas/${component}${fragment(pointer.slice(from.length))}`;
    }
    return `${at}${fragment(pointer)}`;
  };
  // OpenAPI 3.1 speaks JSON Schema 2020-12: older drafts' forms are rewritten, not copied.
  for (const { component, schema: def } of hoisted.values()) {
    schemas[component] =
      typeof def === 'object' && def !== null && !Array.isArray(def)
        ? toDraft2020(mapRefs(def as JsonSchema, relocate))
        : def;
  }
  return toDraft2020(mapRefs(rest, relocate));
}

/** `name`, or `name_2`, `name_3`… when a component of that name exists. */
function uniqueName(name: string, schemas: Record<string, unknown>): string {
  let candidate = name;
  for (let i = 2; candidate in schemas; i++) candidate = `${name}_${i}`;
  return candidate;
}

/** A JSON Pointer as a URI fragment: characters a fragment may not hold are percent-encoded. */
function fragment(pointer: string): string {
  return pointer.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/g, (c) => encodeURIComponent(c));
}

function query(name: string, description: string) {
  return { name, in: 'query', description, schema: { type: 'string' } };
}

function json(description: string, schema: unknown) {
  return { description, content: { 'application/json': { schema } } };
}
