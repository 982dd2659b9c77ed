/*
 * Defaults of the MCP HTTP sessions, in a module of their own: the config schema defaults to them
 * and must not load the session code (and the MCP server SDK) to read two numbers.
 */

/** Sessions with no request for this long are closed (a client that left without DELETE). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/** A keep-alive comment goes down a quiet event stream this often, so it does not look dead. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/**
 * Open MCP sessions one identity may hold on one gateway process (`http.maxSessionsPerIdentity`):
 * far more than any real set of agents under one key opens (on a loopback gateway without auth,
 * every local client shares the anonymous identity), far fewer than what exhausts memory — a
 * session is a server instance of its own, and one key opened 3,000 in 25 s.
 */
export const DEFAULT_MAX_SESSIONS_PER_IDENTITY = 256;
