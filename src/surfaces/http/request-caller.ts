import type { Context } from 'hono';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The authenticated caller of the request (set by `authMiddleware`). */
    caller: CallerContext;
  }
}

/**
 * Callers by request, for sub-apps reached through `app.fetch(c.req.raw)` (the lazily loaded A2A
 * surface), which get a fresh Hono context without the variables of the outer one.
 */
const byRequest = new WeakMap<Request, CallerContext>();

/** Records the authenticated caller of a request. */
export function setRequestCaller(c: Context, caller: CallerContext): void {
  c.set('caller', caller);
  byRequest.set(c.req.raw, caller);
}

/** The authenticated caller of a request; undefined when auth is off (or the path is public). */
export function requestCaller(c: Context): CallerContext | undefined {
  return c.get('caller') ?? byRequest.get(c.req.raw);
}
