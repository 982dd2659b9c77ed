import type { Server } from '@modelcontextprotocol/server';

/**
 * Every use of the MCP SDK's private members, in one place (test/architecture/private-members.test.ts
 * refuses them anywhere else). Each one is a bet on the installed SDK's internals: its canary,
 * `sdk-internals.test.ts`, fails loudly when an SDK update breaks the bet, and says which.
 */

/** A request handler as the SDK's dispatch table holds it (after its own wrapping). */
export type RawRequestHandler = (
  request: { method: string; params?: unknown },
  extra: unknown,
) => Promise<unknown>;

/**
 * The server's table of request handlers by method (`Protocol._requestHandlers`), which the SDK
 * reads on each incoming request: replacing an entry wraps what that method does. The SDK offers
 * no public way to wrap a handler it has already registered (its own schema parse runs inside the
 * registered function, see `request-params-guard.ts`). Undefined when the SDK no longer keeps one.
 */
export function requestHandlerTable(server: Server): Map<string, RawRequestHandler> | undefined {
  const table = (server as unknown as { _requestHandlers?: unknown })._requestHandlers;
  return table instanceof Map ? (table as Map<string, RawRequestHandler>) : undefined;
}
