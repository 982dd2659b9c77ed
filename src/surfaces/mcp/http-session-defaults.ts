/*
 * Defaults of the MCP HTTP sessions, in a module of their own: the config schema defaults to them
 * and must not load the session code (and the MCP server SDK) to read two numbers.
 */

/** Sessions with no request for this long are closed (a client that left without DELETE). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/** A keep-alive comment goes down a quiet event stream this often, so it does not look dead. */
export const DEFAULT_HEARTBEAT_MS = 15_000;
