import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Hono } from 'hono';

/** Options of {@link consoleRoutes}. */
export interface ConsoleRoutesOptions {
  /** The built console (`index.html` and its assets); default `dist/console` beside this module's build. */
  assetsDir?: string;
}

/**
 * The console's Content-Security-Policy: its own scripts, styles and API only; images also as
 * `data:` (tool results carry base64 images). No inline script, no framing, nothing from elsewhere,
 * so a tool description or result rendered by the console can never load or run anything.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** `dist/console`, seen from `dist/surfaces/console/console-routes.js`. */
const DEFAULT_ASSETS = fileURLToPath(new URL('../../console/', import.meta.url));

/**
 * Serves the web console: its page at `/` for browsers (a request accepting `text/html`; other
 * clients keep the JSON index) and its assets under `/console/`. Files are read from the build
 * output, nothing is fetched at run time; every answer carries the console's CSP.
 */
export function consoleRoutes(options: ConsoleRoutesOptions = {}): Hono {
  const dir = path.resolve(options.assetsDir ?? DEFAULT_ASSETS);
  const app = new Hono();
  const headers = (type: string, cache: string) => ({
    'content-type': type,
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': cache,
  });

  app.get('/', async (c, next) => {
    if (!(c.req.header('accept') ?? '').includes('text/html')) return next();
    const page = await readFile(path.join(dir, 'index.html')).catch(() => undefined);
    if (!page) return next();
    return c.body(page, 200, headers(TYPES['.html'] as string, 'no-cache'));
  });

  app.get('/console/*', async (c, next) => {
    const relative = decodeURIComponent(c.req.path.slice('/console/'.length));
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
