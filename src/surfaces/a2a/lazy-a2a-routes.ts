import { Hono } from 'hono';
import type { SurfaceContext } from '../surface-context.js';
import { A2A_CARD_PATH, A2A_ENDPOINT_PATH, A2A_LEGACY_CARD_PATH } from './a2a-paths.js';
import type { A2aSurface, A2aSurfaceOptions } from './a2a-surface.js';

/**
 * The A2A routes, with the A2A SDK loaded on the first A2A request rather than at start-up (it
 * costs about 100 ms to load, and most gateways serve MCP clients only).
 */
export function lazyA2aRoutes(
  context: SurfaceContext,
  options: A2aSurfaceOptions = {},
): { app: Hono; close: () => Promise<void> } {
  let surface: Promise<A2aSurface> | undefined;
  const load = () => {
    surface ??= import('./a2a-surface.js').then(({ createA2aSurface }) => createA2aSurface(context, options));
    return surface;
  };
  const app = new Hono();
  for (const path of [A2A_CARD_PATH, A2A_LEGACY_CARD_PATH, A2A_ENDPOINT_PATH, `${A2A_ENDPOINT_PATH}/*`]) {
    app.all(path, async (c) => (await load()).app.fetch(c.req.raw, c.env));
  }
  const close = async () => {
    if (surface) await (await surface).close();
  };
  return { app, close };
}
