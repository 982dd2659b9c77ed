import type { TaskStore } from '@a2a-js/sdk/server';
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
  options: Omit<A2aSurfaceOptions, 'taskStore'> & {
    /** Makes the task store once the SDK is loaded; default the in-memory one. */
    taskStore?: () => Promise<TaskStore>;
  } = {},
): { app: Hono; close: () => Promise<void> } {
  let surface: Promise<A2aSurface> | undefined;
  const { taskStore, ...rest } = options;
  const load = () => {
    surface ??= (async () => {
      const { createA2aSurface } = await import('./a2a-surface.js');
      return createA2aSurface(context, { ...rest, ...(taskStore ? { taskStore: await taskStore() } : {}) });
    })();
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
