import type { Server } from '@modelcontextprotocol/server';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import type { AutoListing } from './exposure.js';

/** Whom one MCP session serves: its caller and the scope resolved for it (caller + endpoint). */
export interface SessionContext {
  caller: CallerContext;
  scope: ToolScope;
  /**
   * A session rebuilt from another replica's record: what exposure `auto` decided when it opened
   * there (kept until the catalog changes); absent: auto decides here.
   */
  keepListing?: AutoListing;
}

/**
 * Makes a fresh MCP server for one client session; `dispose` releases what it subscribed to.
 * `cancelled` is told of a 2026-07-28 client's `notifications/cancelled` (a request of its own,
 * served by a server of its own): the request it names may have left a call waiting on the client.
 */
export type McpSessionFactory = (session: SessionContext) => {
  server: Server;
  dispose: () => void;
  cancelled?: (requestId: string | number) => void;
  /** What exposure `auto` lists for the session now; undefined in another mode. */
  listing?: () => AutoListing | undefined;
};

/**
 * Who owns a session: the identity, how it was proven, and its grants. A request on the session
 * must come from the same owner — the same identity with other grants (a token with other
 * claims) must open a session of its own rather than inherit this one's scope.
 */
export function sessionOwner(caller: CallerContext): string {
  const grants = caller.toolsets === undefined ? '*' : [...caller.toolsets].sort().join(',');
  // Method and identity, as `callerKey` tells callers apart; kept in this form because replicas
  // store it with shared sessions, and a rolling upgrade must not orphan them.
  return JSON.stringify([caller.authMethod ?? 'none', caller.identity, grants]);
}
