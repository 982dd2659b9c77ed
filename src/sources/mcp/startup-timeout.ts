/**
 * How long starting a downstream server and its `initialize` may take before the attempt is given
 * up (and retried with backoff), unless `servers.<name>.startupTimeoutMs` says otherwise. A
 * package that `npx` must install first is installed before this clock starts (`package-cache.ts`).
 * In a module of its own so that the config schema reads it without loading the MCP client.
 */
export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
