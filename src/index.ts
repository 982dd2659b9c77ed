/**
 * Aperture's public API for tool authors and embedders.
 *
 * Tool modules use `defineTool`; embedders build a gateway with `Gateway.create` from a config
 * loaded by `loadConfig`.
 */

export { Gateway } from './app/gateway.js';
export type { ApertureConfig } from './config/config-schema.js';
export { type LoadedConfig, loadConfig } from './config/load-config.js';
export { GATEWAY_ERROR_CODES, type GatewayErrorCode } from './foundation/model/error-codes.js';
export { ERROR_CODE_TABLE, httpStatusOf } from './foundation/model/error-tables.js';
export { flatToolName } from './foundation/model/flat-name.js';
export { GatewayError, type GatewayErrorJson } from './foundation/model/gateway-error.js';
export type {
  JsonSchema,
  Tool,
  ToolAnnotations,
  ToolExample,
  ToolMetadata,
  ToolResult,
} from './foundation/model/tool.js';
export { formatToolId, parseToolId } from './foundation/model/tool-id.js';
export {
  defineTool,
  type ToolContext,
  type ToolDefinition,
  type ToolDefinitionInput,
} from './sources/local/define-tool.js';
