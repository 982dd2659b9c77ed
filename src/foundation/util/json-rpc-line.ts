import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { isRecord } from './is-record.js';

/**
 * One line of an MCP stdio stream as a JSON-RPC message (both ends of the gateway read them: the
 * client's requests on stdin, the downstream servers' answers on their stdout): thrown when it is
 * not JSON or not JSON-RPC.
 */
export function parseJsonRpcLine(line: string): JSONRPCMessage {
  return readJsonRpcMessage(JSON.parse(line));
}

/**
 * A parsed JSON value as a JSON-RPC message, as the SDK's message schema reads it; throws its
 * error when the schema refuses it. The two messages of every call — a plain request (`{jsonrpc,
 * id, method, params?}`) and a plain result response (`{jsonrpc, id, result}`) — are taken as they
 * are after a few checks: the schema is a union of four strict objects, and running it on every
 * message cost more allocation than anything else the gateway does per call (the SDK checks a
 * request's params and a call's result against their own schemas again). Every other message, and
 * a request or result that carries `_meta` (whose parts the schema checks and rewrites), goes
 * through the schema.
 */
export function readJsonRpcMessage(value: unknown): JSONRPCMessage {
  return isPlainRequest(value) || isPlainResultResponse(value) ? value : JSONRPCMessageSchema.parse(value);
}

/** What the schema accepts as a request, without `_meta` in its params. */
function isPlainRequest(value: unknown): value is JSONRPCMessage {
  if (!isRecord(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return false;
    keys++;
  }
  const { params } = value;
  if (keys !== (params === undefined ? 3 : 4) || value.jsonrpc !== '2.0') return false;
  if (typeof value.method !== 'string' || !isRequestId(value.id)) return false;
  return params === undefined || (isRecord(params) && !('_meta' in params));
}

/** What the schema accepts as a result response, without `_meta` in the result. */
function isPlainResultResponse(value: unknown): value is JSONRPCMessage {
  if (!isRecord(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'result') return false;
    keys++;
  }
  if (keys !== 3 || value.jsonrpc !== '2.0' || !isRequestId(value.id)) return false;
  const { result } = value;
  return isRecord(result) && !('_meta' in result);
}

/** A JSON-RPC id as the SDK's schema reads one: a string or a safe integer. */
export function isRequestId(id: unknown): id is string | number {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}
