/** The prefix the MCP SDK's `McpError` puts in front of every message, once per construction. */
const SDK_PREFIX = /^(MCP error -?\d+: )+/;

/**
 * A JSON-RPC error's message without the SDK's `MCP error <code>: ` prefixes. Each `McpError`
 * construction adds one (the server's, the client's on receipt, the gateway's when it passes an
 * error on), so a message that went through the gateway would otherwise carry two or three; the
 * code travels separately wherever it matters.
 */
export function bareRpcMessage(message: string): string {
  return message.replace(SDK_PREFIX, '');
}
