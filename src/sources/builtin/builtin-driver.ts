import type { SourceDriver } from '../source-driver.js';

/**
 * The gateway's built-in tools (`tools.builtin`): code shipped with the gateway, so the trust gate
 * does not check them. One in-process source (`builtinSource`), wired by the gateway itself.
 */
export const BUILTIN_DRIVER: SourceDriver<'builtin'> = {
  kind: 'builtin',
  trustGated: false,
  section: undefined,
};
