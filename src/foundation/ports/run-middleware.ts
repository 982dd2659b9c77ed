import type { Tool, ToolResult } from '../model/tool.js';
import type { ExecutionContext } from './tool-backend.js';

/** What a middleware sees of a call: the resolved tool, its validated arguments, the context. */
export interface RunCall {
  readonly tool: Tool;
  readonly args: Record<string, unknown>;
  readonly ctx: ExecutionContext;
}

/**
 * The run pipeline's extension port. Declared here, below layer 2, because it is where layer-2
 * folders meet: execution/ composes middlewares, operations/ implements them (tracing, metrics,
 * rate limits, caching, retries, circuit breaking) and app/ puts them in the chain. A middleware
 * may short-circuit (return without `next`), call `next` several times (retry), or throw a
 * GatewayError.
 */
export type RunMiddleware = (call: RunCall, next: () => Promise<ToolResult>) => Promise<ToolResult>;
