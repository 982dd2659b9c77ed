import { type Context, Hono } from 'hono';
import type { z } from 'zod';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { ANONYMOUS_CALLER, type CallerContext } from '../../foundation/ports/tool-backend.js';
import { readJsonBody } from '../http/read-json-body.js';
import { requestCaller } from '../http/request-caller.js';
import { restError } from '../http/rest-errors.js';
import { ADMIN_API, type AdminOperation, type AdminOperationId } from './admin-contract.js';

/** Options of {@link adminRouter}. */
export interface AdminRouterOptions {
  /** True when `auth` configures credentials: operations marked `admin` need an admin identity. */
  authEnabled: boolean;
  /** The largest JSON body read (`http.maxBodyBytes`). */
  maxBodyBytes: number;
}

type Params<O> = O extends { params: infer P extends z.ZodType } ? z.output<P> : Record<never, never>;
type Query<O> = O extends { query: infer Q extends z.ZodType } ? z.output<Q> : Record<never, never>;
type Body<O> = O extends { body: infer B extends z.ZodType } ? z.output<B> : never;
/** What a handler returns: the answer's JSON (checked against the contract), or the stream. */
type Answer<O> = O extends { response: infer R extends z.ZodType } ? z.input<R> : Response;

/** What a handler gets: the request, already checked against its operation's schemas. */
export interface AdminRequest<O extends AdminOperation> {
  c: Context;
  /** The authenticated caller; the anonymous caller when auth is off. */
  caller: CallerContext;
  params: Params<O>;
  query: Query<O>;
  /**
   * Reads the JSON body and checks it against the operation's schema: 400 as the operation's
   * `invalidBody` says (`validation_input` naming each bad field by default). Called by the
   * handler, so a refusal it finds first (a feature that is off) is the answer rather than a
   * complaint about the body.
   */
  body(): Promise<Body<O>>;
}

/** The handler of one operation. */
export type AdminHandler<O extends AdminOperation> = (
  request: AdminRequest<O>,
) => Answer<O> | Promise<Answer<O>>;

/**
 * Handlers by operationId. A mapped type rather than a generic `serve(operation, handler)`: a
 * generic would still be inferring while the handler is checked, and its answer's literals
 * (`success: true`) would widen and fail.
 */
export type AdminHandlers = { [Id in AdminOperationId]?: AdminHandler<(typeof ADMIN_API)[Id]> };

/** A sub-app of the management API, its routes registered from the contract. */
export interface AdminRouter {
  readonly app: Hono;
  /** Serves each operation with its handler, behind the admin guard when the operation says so. */
  serve(handlers: AdminHandlers): void;
  /** The admin guard, for an operation that needs an admin only sometimes: 403 `forbidden`. */
  requireAdmin(caller: CallerContext, what: string): void;
}

/**
 * A Hono sub-app for management API routes. Each route is registered from its contract entry
 * (`ADMIN_API`): method and path, the admin guard, parameters and body parsed by the entry's
 * schemas, the answer typed by its response schema. One `onError` answers every failure in the
 * REST error shape (`restError`: the status from the error code table), so no handler catches.
 */
export function adminRouter(options: AdminRouterOptions): AdminRouter {
  const app = new Hono();
  app.onError((error, c) => restError(c, error));
  const requireAdmin = (caller: CallerContext, what: string): void => {
    if (options.authEnabled && caller.admin !== true) {
      throw new GatewayError('forbidden', `${what} needs an admin identity (auth.apiKeys[].admin: true)`);
    }
  };
  return {
    app,
    requireAdmin,
    serve(handlers) {
      for (const [id, handler] of Object.entries(handlers) as [AdminOperationId, AdminHandler<never>][]) {
        const operation: AdminOperation = ADMIN_API[id];
        app.on(operation.method.toUpperCase(), honoPath(operation.path), async (c) => {
          const authenticated = requestCaller(c);
          const caller = authenticated ?? ANONYMOUS_CALLER;
          if (operation.admin !== undefined) {
            // The auth middleware answers 401 before this; kept so that a sub-app is safe on its own.
            if (options.authEnabled && authenticated === undefined) {
              throw new GatewayError('unauthorized', `${operation.admin} needs credentials`);
            }
            requireAdmin(caller, operation.admin);
          }
          const answer: unknown = await (handler as AdminHandler<AdminOperation>)({
            c,
            caller,
            // Path and query parameters are strings by construction: these parses cannot fail.
            params: operation.params ? operation.params.parse(c.req.param()) : {},
            query: operation.query ? operation.query.parse(c.req.query()) : {},
            body: async () => checkBody(operation, await readJsonBody(c, options.maxBodyBytes)) as never,
          });
          return answer instanceof Response ? answer : c.json(answer);
        });
      }
    },
  };
}

/** An OpenAPI path (`/tools/{id}`) as a Hono route (`/tools/:id`). */
export function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** The body parsed by the operation's schema, or the caller's 400 as `invalidBody` says. */
function checkBody(operation: AdminOperation, body: unknown): unknown {
  if (!operation.body) return body;
  const parsed = operation.body.safeParse(body);
  if (parsed.success) return parsed.data;
  const refusal = operation.invalidBody;
  if (typeof refusal === 'object') throw new GatewayError(refusal.code, refusal.message);
  const issues = parsed.error.issues.map((issue) => ({
    path: `/${issue.path.map((key) => String(key).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`,
    message:
      issue.path.length === 0 && issue.code === 'invalid_type' ? 'must be a JSON object' : issue.message,
  }));
  const first = issues[0] ?? { path: '/', message: 'is invalid' };
  throw new GatewayError(
    'validation_input',
    `${refusal ?? 'Invalid request'}: ${first.path} ${first.message}`,
    { details: { issues } },
  );
}
