import type { MiddlewareHandler } from 'hono';

/**
 * The Content-Security-Policy of a page that declares none: it may load, run, frame or submit
 * nothing. The console sends its own (`CONSOLE_CSP`); every other page the gateway serves (a login
 * answer, an error) is text that must never become a document that runs anything.
 */
export const DEFAULT_PAGE_CSP =
  "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The header every answer carries, so no browser sniffs a text or JSON answer into HTML. */
export const NOSNIFF = { name: 'x-content-type-options', value: 'nosniff' } as const;

/**
 * Sets `X-Content-Type-Options: nosniff` on a Node response before anything writes it. Installed
 * on the server itself rather than as a route middleware, so it also covers the answers no route
 * makes: a handler that threw, a 404, an answer of a sub-application.
 */
export function setNosniff(response: { setHeader(name: string, value: string): unknown }): void {
  response.setHeader(NOSNIFF.name, NOSNIFF.value);
}

/**
 * Gives every HTML or plain-text answer without a Content-Security-Policy the restrictive
 * {@link DEFAULT_PAGE_CSP}: a page that reflects a query parameter (the OAuth callback's error
 * text) cannot become a script, whatever a browser makes of it.
 */
export function pagePolicy(): MiddlewareHandler {
  return async (c, next) => {
    // A POST's answer is never a page a browser shows: a form post is refused (415, JSON) by the
    // simple-request guard before any route answers, and every other POST is a script's fetch.
    // Skipping them keeps the tool-call path off `c.res.headers`, whose first read makes the Node
    // adapter build a full Response and write it through web streams instead of its fast path.
    if (c.req.method === 'POST') return next();
    await next();
    const type = c.res.headers.get('content-type') ?? '';
    if (!/^text\/(html|plain)/i.test(type) || c.res.headers.has('content-security-policy')) return;
    try {
      c.res.headers.set('content-security-policy', DEFAULT_PAGE_CSP);
    } catch {
      // Immutable headers (a redirect or fetched response): copy the answer to set it.
      const copy = new Response(c.res.body, c.res);
      copy.headers.set('content-security-policy', DEFAULT_PAGE_CSP);
      c.res = copy;
    }
  };
}
