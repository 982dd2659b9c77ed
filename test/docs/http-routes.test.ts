import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatewayHttpRoutes, REFERENCE_DIR } from '../../scripts/docs-reference.js';
import { ROOT } from '../e2e/gateway-process.js';

/*
 * The HTTP reference lists every route a running gateway answers — not only those of the OpenAPI
 * document: the routes are read from the app the features assembled, so a route a feature adds
 * is in the page once it is regenerated (and the page is stale until then).
 */
describe('the HTTP reference', () => {
  it('lists every route of a gateway with every optional route turned on', async () => {
    const page = readFileSync(path.join(ROOT, REFERENCE_DIR, 'http.md'), 'utf8');
    const routes = await gatewayHttpRoutes();
    // Routes no OpenAPI document describes, each added by its own feature or surface.
    for (const route of [
      'POST /mcp',
      'GET /sse',
      'POST /messages',
      'GET /healthz',
      'GET /readyz',
      'GET /metrics',
      'GET /.well-known/mcp/manifest.json',
      'GET /.well-known/oauth-protected-resource',
      'GET /oauth/callback',
      'ALL /a2a',
    ]) {
      expect(routes).toContain(route);
    }
    for (const route of routes) {
      const [method, routePath] = route.split(' ');
      expect(page, route).toContain(`| ${method} | \`${routePath}\` |`);
    }
  }, 30_000);
});
