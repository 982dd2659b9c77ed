import type { Tool, ToolResult } from '../foundation/tool.js';
import type { ExecutionContext } from '../foundation/tool-backend.js';

/** What a middleware sees of a call: the resolved tool, its validated arguments, the context. */
export interface RunCall {
  readonly tool: Tool;
  readonly args: Record<string, unknown>;
  readonly ctx: ExecutionContext;
}

/**
 * The pipeline's extension port: tracing, metrics, rate limits, caching, retries and circuit
 * breaking are middlewares implemented above (operations/) and injected by app/. A middleware may
 * short-circuit (return without `next`), call `next` several times (retry), or throw a
 * GatewayError.
 */
export type RunMiddleware = (call: RunCall, next: () => Promise<ToolResult>) => Promise<ToolResult>;

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
