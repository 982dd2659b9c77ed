import { ProtocolError } from '@modelcontextprotocol/server';
import { bareRpcMessage } from '../../foundation/util/bare-rpc-message.js';

/**
 * A JSON-RPC error to throw from a request handler. The SDK's `ProtocolError` message reads
 * `MCP error <code>: <message>`, the server sends that message as it is, and the client's SDK
 * prefixes it once more on receipt: `MCP error -32602: MCP error -32602: …`. The message sent here
 * is the bare text (any prefix of a downstream error re-thrown through the gateway removed), so
 * the client shows exactly one.
 */
export function protocolError(code: number, message: string, data?: unknown): ProtocolError {
  const bare = bareRpcMessage(message);
  const error = new ProtocolError(code, bare, data);
  error.message = bare;
  return error;
}
