import { type Context, Hono } from 'hono';
import { SEARCH_INPUT, SEARCH_INPUT_SCHEMA } from '../../composition/search-input-schema.js';
import type { ToolScope } from '../../composition/tool-scope.js';
import { MAX_PAGE_SIZE } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { type CallerContext, sessionOf } from '../../foundation/ports/tool-backend.js';
import { formatIssues, SchemaValidator } from '../../foundation/schema/schema-validator.js';
import { parseInput } from '../../foundation/schema/zod-input.js';
import { readJsonBody } from '../http/read-json-body.js';
import { requestCaller } from '../http/request-caller.js';
import { restError } from '../http/rest-errors.js';
import type { SurfaceContext } from '../surface-context.js';
import { type DocumentPolicies, openApiDocument } from './openapi-document.js';

/** What only the REST API needs besides the `SurfaceContext`. */
export interface RestOptions {
  /** Call policies the OpenAPI document declares the answers of (429 with rate limits). */
  policies?: DocumentPolicies;
  /** The caller of requests that carry no authenticated identity (auth off). */
  caller?: CallerContext;
  /** Validates request bodies (default: a fresh one). */
  validator?: SchemaValidator;
}

const REST_CALLER: CallerContext = { identity: 'rest' };

/**
 * The REST API (docs/DESIGN.md §4): tool summaries and search, one tool with its schemas, running a tool
 * with the body as its arguments, and the OpenAPI document of it all. Every answer goes through
 * the same scope and pipeline as MCP; errors carry the code and its HTTP status from the table.
 */
export function restRoutes(context: SurfaceContext, options: RestOptions = {}): Hono {
  const app = new Hono();
  const validator = options.validator ?? new SchemaValidator();
  const documents = new WeakMap<ToolScope, () => Record<string, unknown>>();
  const documentOf = (scope: ToolScope) => {
    let document = documents.get(scope);
    if (!document) {
      document = openApiDocument(scope, context.info, context.credentials, options.policies);
      documents.set(scope, document);
    }
    return document();
  };
  /** The request's caller and scope: its identity's, narrowed by `?toolset=`. */
  const access = (c: Context): { caller: CallerContext; scope: ToolScope } => {
    const caller = requestCaller(c) ?? options.caller ?? REST_CALLER;
    const toolset = c.req.query('toolset') || undefined;
    const scope = context.resolveScope({ caller, ...(toolset !== undefined ? { toolset } : {}) });
    return { caller: { ...caller, surface: 'rest', ...(toolset !== undefined ? { toolset } : {}) }, scope };
  };

  app.get('/api/tools', async (c) => {
    try {
      const { caller, scope } = access(c);
      const q = c.req.query('q');
      const namespace = c.req.query('namespace');
      const tags = c.req
        .queries('tags')
        ?.flatMap((t) => t.split(','))
        .filter(Boolean);
      const limit = intParam(c.req.query('limit'), 'limit', 1, MAX_PAGE_SIZE);
      const cursor = c.req.query('cursor');
      // Absent, `search.explain` decides.
      const explainParam = c.req.query('explain');
      const explain = explainParam === undefined ? undefined : boolParam(explainParam, 'explain');
      const page = q
        ? await scope.search({
            query: q,
            limit,
            cursor,
            namespace,
            tags,
            explain,
            session: sessionOf(caller),
          })
        : tags && tags.length > 0
          ? await scope.search({ query: '', limit, cursor, namespace, tags })
          : scope.list({ namespace, limit, cursor });
      return c.json(page);
    } catch (error) {
      return restError(c, error);
    }
  });

  app.post('/api/search', async (c) => {
    try {
      const { caller, scope } = access(c);
      const { explain, ...body } = await jsonObjectBody(c.req.raw.headers, () =>
        readJsonBody(c, context.maxBodyBytes),
      );
      // `explain` is REST's own (for the console), not a search_tools argument: checked apart.
      if (explain !== undefined && typeof explain !== 'boolean') {
        throw new GatewayError('validation_input', 'Invalid search request: /explain must be boolean', {
          details: { issues: [{ path: '/explain', message: 'must be boolean' }] },
        });
      }
      // The same schema as search_tools: a wrong-typed filter is the caller's 400, not a 500.
      const outcome = validator.validate(SEARCH_INPUT_SCHEMA, body);
      if (!outcome.valid) {
        throw new GatewayError(
          'validation_input',
          `Invalid search request: ${formatIssues(outcome.issues)}`,
          {
            details: { issues: outcome.issues },
          },
        );
      }
      // Checked above against the published schema (the messages every surface gives); parsed here
      // for its type, by the definition that schema is made from.
      const search = parseInput(SEARCH_INPUT, body, 'Invalid search request');
      return c.json(await scope.search({ ...search, explain, session: sessionOf(caller) }));
    } catch (error) {
      return restError(c, error);
    }
  });

  app.get('/api/tools/:id', (c) => {
    try {
      const { scope } = access(c);
      return c.json(scope.describe(c.req.param('id'), detailParam(c.req.query('detail'))));
    } catch (error) {
      return restError(c, error);
    }
  });

  app.post('/api/tools/:id', async (c) => {
    try {
      const { caller, scope } = access(c);
      const id = c.req.param('id');
      scope.get(id);
      const args = await jsonObjectBody(c.req.raw.headers, () => readJsonBody(c, context.maxBodyBytes), true);
      // The client hanging up cancels the call. Listening on the Node response (not on
      // `c.req.raw.signal`) spares the adapter an AbortController per request.
      const controller = new AbortController();
      const outgoing = (c.env as { outgoing?: import('node:http').ServerResponse } | undefined)?.outgoing;
      const onClose = () => {
        if (!outgoing?.writableFinished) controller.abort();
      };
      outgoing?.once('close', onClose);
      const result = await scope.run(id, args, { caller, signal: controller.signal });
      return c.json({ success: true, result });
    } catch (error) {
      return restError(c, error);
    }
  });

  app.get('/openapi.json', (c) => {
    try {
      return c.json(documentOf(access(c).scope));
    } catch (error) {
      return restError(c, error);
    }
  });

  for (const path of ['/api/tools', '/api/tools/:id', '/api/search', '/openapi.json']) {
    app.all(path, (c) =>
      restError(c, new GatewayError('method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}`)),
    );
  }
  return app;
}

/**
 * The JSON object body of a POST. A body must be `application/json` (415 otherwise); with
 * `emptyIsObject`, a request without a body counts as `{}` (a tool without arguments).
 */
async function jsonObjectBody(
  headers: Headers,
  read: () => Promise<unknown>,
  emptyIsObject = false,
): Promise<Record<string, unknown>> {
  const type = headers.get('content-type');
  const length = headers.get('content-length');
  if (emptyIsObject && !type && (length === null || length === '0') && !headers.has('transfer-encoding'))
    return {};
  if (!type || !/^application\/(.+\+)?json\b/i.test(type)) {
    throw new GatewayError(
      'unsupported_media_type',
      `Send a JSON body with content-type application/json (got ${type ?? 'none'})`,
    );
  }
  const body = await read();
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalidBody('/', 'must be a JSON object');
  return body as Record<string, unknown>;
}

function invalidBody(path: string, message: string): GatewayError {
  return new GatewayError('invalid_request', `The request body ${path === '/' ? '' : `${path} `}${message}`, {
    details: { issues: [{ path, message }] },
  });
}

function intParam(value: string | undefined, name: string, min: number, max: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
    const message = `must be an integer from ${min} to ${max}`;
    throw new GatewayError('validation_input', `${name} ${message} (got "${value.slice(0, 40)}")`, {
      details: { issues: [{ path: `/${name}`, message }] },
    });
  }
  return n;
}

/** A boolean query parameter: `true`/`1` or `false`/`0`; absent or empty is false. */
function boolParam(value: string | undefined, name: string): boolean {
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  const message = 'must be true or false';
  throw new GatewayError('validation_input', `${name} ${message} (got "${value.slice(0, 40)}")`, {
    details: { issues: [{ path: `/${name}`, message }] },
  });
}

function detailParam(value: string | undefined): 'summary' | 'schema' | 'full' {
  if (value === undefined) return 'schema';
  if (value === 'summary' || value === 'schema' || value === 'full') return value;
  throw new GatewayError('validation_input', `detail must be summary, schema or full (got "${value}")`);
}
