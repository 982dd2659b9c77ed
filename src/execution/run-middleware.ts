import type { ToolResult } from '../foundation/model/tool.js';
import type { RunCall, RunMiddleware } from '../foundation/ports/run-middleware.js';

// The port lives in foundation/ so operations/ can implement it without importing execution/.
export type { RunCall, RunMiddleware } from '../foundation/ports/run-middleware.js';

/** Composes middlewares around `last` (first in the list is outermost). */
export function composeMiddlewares(
  middlewares: readonly RunMiddleware[],
  call: RunCall,
  last: () => Promise<ToolResult>,
): Promise<ToolResult> {
  const dispatch = (index: number): Promise<ToolResult> => {
    const middleware = middlewares[index];
    return middleware ? middleware(call, () => dispatch(index + 1)) : last();
  };
  return dispatch(0);
}
