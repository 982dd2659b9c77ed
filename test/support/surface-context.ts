import type { ToolScope } from '../../src/composition/tool-scope.js';
import { GatewayError } from '../../src/foundation/model/gateway-error.js';
import { silentLogger } from '../../src/foundation/ports/logger.js';
import type { SurfaceContext } from '../../src/surfaces/surface-context.js';

/**
 * A `SurfaceContext` for surface tests: every caller works in `scope` and no toolset exists (as
 * a gateway without toolsets answers), 1 MiB bodies, a silent log; `overrides` replace any part.
 */
export function surfaceContext(scope: ToolScope, overrides: Partial<SurfaceContext> = {}): SurfaceContext {
  return {
    scope,
    resolveScope: ({ toolset }) => {
      if (toolset !== undefined) throw new GatewayError('not_found', `No toolset "${toolset}"`);
      return scope;
    },
    maxBodyBytes: 1024 * 1024,
    info: { name: 'gw', version: '1' },
    baseUrl: () => '',
    log: silentLogger,
    ...overrides,
  };
}
