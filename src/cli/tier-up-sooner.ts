import { setFlagsFromString } from 'node:v8';

/**
 * V8's interrupt budget, in bytes of bytecode run, between a function's tier-up checks; Node 20's
 * default is 67584 (`node --v8-options`). At 1024 the per-call path reaches optimised code within
 * the first few hundred calls instead of the first few thousand; 256 was slower again (functions
 * optimised before their feedback settled), 2048–8192 gained less.
 */
export const SERVING_INTERRUPT_BUDGET = 1024;

/**
 * How long after ready the budget is lowered: long enough that a client's `initialize` and first
 * `tools/list` still run at V8's defaults (lowered at ready, the stdio first answer took 6–9 % more
 * CPU), short enough that the first calls already profit.
 */
export const TIER_UP_DELAY_MS = 250;

/** {@link tierUpSooner} after {@link TIER_UP_DELAY_MS}, on a timer that keeps no process alive. */
export function tierUpSoonerShortly(
  delayMs = TIER_UP_DELAY_MS,
  apply: () => void = () => tierUpSooner(),
): void {
  setTimeout(apply, delayMs).unref();
}

/**
 * Lowers V8's interrupt budget once the gateway is serving, so that the per-call path is optimised
 * sooner. Set after start-up on purpose: set before it, the same flag optimises the one-off
 * start-up code too, and the time to ready grew by half in the start-up benchmark (at 8192). The
 * budget is read each time a function's budget is reset, so functions already run pick it up at
 * their next check.
 *
 * Left alone when the user set `--interrupt-budget` (on the command line or in `NODE_OPTIONS`).
 * Returns whether the flag was set.
 */
export function tierUpSooner(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string | undefined = process.env.NODE_OPTIONS,
  setFlags: (flags: string) => void = setFlagsFromString,
): boolean {
  const userSet = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((arg) =>
    /^--interrupt[-_]budget(=|$)/.test(arg),
  );
  if (userSet) return false;
  setFlags(`--interrupt-budget=${SERVING_INTERRUPT_BUDGET}`);
  return true;
}
