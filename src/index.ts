/**
 * Aperture's public API for tool authors and embedders.
 *
 * Tool modules use `defineTool`; embedders build a gateway with `Gateway.create` from a config
 * loaded by `loadConfig`.
 */
export { defineTool, type ToolContext, type ToolDefinition, type ToolDefinitionInput } from './sources/local/define-tool.js';
export { GatewayError, type GatewayErrorJson } from './foundation/gateway-error.js';
export { GATEWAY_ERROR_CODES, type GatewayErrorCode } from './foundation/error-codes.js';
export { ERROR_CODE_TABLE, httpStatusOf } from './foundation/error-tables.js';
export { parseToolId, formatToolId } from './foundation/tool-id.js';
export { flatToolName } from './foundation/flat-name.js';
export type { Tool, ToolResult, ToolAnnotations, ToolMetadata, ToolExample, JsonSchema } from './foundation/tool.js';
export { Gateway } from './app/gateway.js';
export { loadConfig, type LoadedConfig } from './config/load-config.js';
export type { ApertureConfig } from './config/config-schema.js';
