import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';

/**
 * One line of a downstream server's stdout as a JSON-RPC message: thrown when it is not JSON or
 * not JSON-RPC. The answer to a call — a result response, `{jsonrpc, id, result}` and nothing
 * else — is taken as parsed after a few checks: the SDK's message schema is a union of four
 * strict objects, and running it on every answer cost more allocation than anything else the
 * gateway does per call (the SDK checks the result again against the request's result schema).
 * Every other message, and a result that carries `_meta` (whose parts the schema rewrites), goes
 * through the schema.
 */
export function parseJsonRpcLine(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return isPlainResultResponse(value) ? value : JSONRPCMessageSchema.parse(value);
}

/** What the schema accepts as a result response, without `_meta` in the result. */
function isPlainResultResponse(value: unknown): value is JSONRPCMessage {
  if (!isObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
    keys++;
  }
  if (keys !== 3 || value.jsonrpc !== '2.0') return false;
  const { id, result } = value;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return false;
  return isObject(result) && !('_meta' in result);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
