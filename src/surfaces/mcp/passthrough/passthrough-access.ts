import type { CacheHint, ProtocolError, ServerContext } from '@modelcontextprotocol/server';
import type { GatedMethod } from '../../../execution/action-gate.js';
import { jsonRpcCodeOf } from '../../../foundation/model/error-tables.js';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import { protocolError } from '../protocol-error.js';
import type { PassthroughRelay } from './passthrough-relay.js';

/**
 * What one session may reach of the downstream servers' prompts and resources, and how its reads
 * and gets are gated. Every part is optional: a session without any (a test, a gateway without
 * policies) sees every server and relays at once.
 */
export interface PassthroughAccess {
  /**
   * Whether the session sees `server`'s prompts and resources (listed, read, got, subscribed,
   * completed, its log messages and list changes). Absent: every server.
   */
  sees?: (server: PassthroughRelay) => boolean;
  /**
   * Runs a read, get or subscription through the stages tool calls pass (authorize, rate limits,
   * the activity feed…); throws a GatewayError when a stage refuses it. Absent: relayed at once.
   */
  gate?: <T>(
    server: PassthroughRelay,
    method: GatedMethod,
    args: Record<string, unknown>,
    extra: ServerContext,
    run: (signal: AbortSignal) => Promise<T>,
  ) => Promise<T>;
  /**
   * The caching hint of a merged list (`prompts/list`, `resources/list`,
   * `resources/templates/list`) from its sources' hints, for a 2026-07-28 request; absent: the
   * SDK's `ttlMs: 0`, `cacheScope: private`.
   */
  listHint?: (sources: readonly (CacheHint | undefined)[]) => Required<CacheHint>;
}

/** The answer to a name or URI of a server the session does not see (`forbidden`). */
export function outsideScope(what: string, server: PassthroughRelay): ProtocolError {
  return gatewayProtocolError(
    new GatewayError(
      'forbidden',
      `${what} belongs to server "${server.namespace}", which is outside the toolsets of this caller`,
    ),
  );
}

/** A GatewayError as the JSON-RPC error of a relayed request: the code's JSON-RPC code, `data.code`. */
export function gatewayProtocolError(error: GatewayError, mask: (text: string) => string = (t) => t) {
  return protocolError(jsonRpcCodeOf(error), mask(error.message), { code: error.code });
}

/**
 * Runs `run` through the session's gate, if any. A refusal of one of the gate's stages becomes
 * the JSON-RPC error of its code; what the relayed request itself throws passes as it is.
 */
export async function gated<T>(
  access: PassthroughAccess,
  server: PassthroughRelay,
  method: GatedMethod,
  args: Record<string, unknown>,
  extra: ServerContext,
  run: (signal: AbortSignal) => Promise<T>,
  mask: (text: string) => string,
): Promise<T> {
  if (!access.gate) return run(extra.mcpReq.signal);
  try {
    return await access.gate(server, method, args, extra, run);
  } catch (error) {
    if (error instanceof GatewayError) throw gatewayProtocolError(error, mask);
    throw error;
  }
}

/** The caching hint a list result carries (2026-07-28 servers send one), if any. */
export function cacheHintOf(result: unknown): CacheHint | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  const hint: CacheHint = {};
  if (typeof ttlMs === 'number') hint.ttlMs = ttlMs;
  if (cacheScope === 'public' || cacheScope === 'private') hint.cacheScope = cacheScope;
  return hint.ttlMs === undefined && hint.cacheScope === undefined ? undefined : hint;
}
