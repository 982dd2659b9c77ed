import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { httpError } from '../http/http-error.js';

/** Options of {@link consoleRoutes}. */
export interface ConsoleRoutesOptions {
  /** The built console (`index.html` and its assets); default `dist/console` beside this module's build. */
  assetsDir?: string;
}

/**
 * The console's Content-Security-Policy: its own scripts, styles and API only; images also as
 * `data:` (tool results carry base64 images). No inline script, no framing, nothing from elsewhere,
 * so a tool description or result rendered by the console can never load or run anything. The code
 * editor (CodeMirror) adds its styles in a `<style>` element: the page's own answer allows exactly
 * that one with a fresh nonce per load ({@link pageCsp}), handed to the editor in a `<meta>`; it
 * also sizes its parts with `style` attributes, hence `style-src-attr 'unsafe-inline'` — attributes
 * only, which run nothing and load nothing that `img-src`/`font-src` would not allow anyway.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page's CSP: {@link CONSOLE_CSP} plus styles carrying this load's nonce. */
export function pageCsp(nonce: string): string {
  return CONSOLE_CSP.replace("style-src 'self'", `style-src 'self' 'nonce-${nonce}'`);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
};

/**
 * `dist/console`, seen from `dist/surfaces/console/console-routes.js`, or from a chunk of the
 * bundled CLI in `dist/cli/` (scripts/bundle-cli.mjs).
 */
const DEFAULT_ASSETS =
  [
    fileURLToPath(new URL('../../console/', import.meta.url)),
    fileURLToPath(new URL('../console/', import.meta.url)),
    // The built script marks the build output (the repository's `console/` holds the sources).
  ].find((dir) => existsSync(path.join(dir, 'console.js'))) ??
  fileURLToPath(new URL('../../console/', import.meta.url));

/**
 * Serves the web console: its page at `/` for browsers (a request accepting `text/html`; other
 * clients keep the JSON index), its assets under `/console/` and its icon at `/favicon.ico`. Files are read from the build
 * output, nothing is fetched at run time; every answer carries the console's CSP.
 */
export function consoleRoutes(options: ConsoleRoutesOptions = {}): Hono {
  const dir = path.resolve(options.assetsDir ?? DEFAULT_ASSETS);
  const app = new Hono();
  const headers = (type: string, cache: string, csp = CONSOLE_CSP) => ({
    'content-type': type,
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': cache,
  });

  app.get('/', async (c, next) => {
    if (!(c.req.header('accept') ?? '').includes('text/html')) return next();
    const page = await readFile(path.join(dir, 'index.html'), 'utf8').catch(() => undefined);
    if (!page) return next();
    const nonce = randomBytes(16).toString('base64');
    const html = page.replace('<head>', `<head>\n    <meta name="csp-nonce" content="${nonce}" />`);
    return c.body(html, 200, headers(TYPES['.html'] as string, 'no-store', pageCsp(nonce)));
  });

  // Browsers ask for /favicon.ico on their own (the page links the SVG, but a tab opened on an API
  // path, or an older browser, still asks): the same SVG, so the console's network log has no 404.
  app.get('/favicon.ico', async (c, next) => {
    const body = await readFile(path.join(dir, 'favicon.svg')).catch(() => undefined);
    if (!body) return next();
    return c.body(body, 200, headers(TYPES['.svg'] as string, 'max-age=86400'));
  });

  app.get('/console/*', async (c, next) => {
    let relative: string;
    try {
      relative = decodeURIComponent(c.req.path.slice('/console/'.length));
    } catch {
      // A malformed %-escape names no file; answered here, before auth, as the caller's mistake.
      return httpError(c, new GatewayError('invalid_request', 'The request path has a malformed %-escape'));
    }
    const file = path.resolve(dir, relative);
    // Only files inside the console's folder: `..` and absolute paths never leave it.
    if (!file.startsWith(dir + path.sep)) return next();
    const body = await readFile(file).catch(() => undefined);
    if (!body) return next();
    const type = TYPES[path.extname(file)] ?? 'application/octet-stream';
    return c.body(body, 200, headers(type, 'no-cache'));
  });
  return app;
}
