import { globMatcher } from '../../foundation/schema/glob-matcher.js';

/**
 * A matcher for a rule's `tools` entry: `*` stands for any run of characters (`:` included, so
 * `github:*` matches every tool of the namespace); anything else matches itself. Linear-time
 * (`globMatcher`), so a hostile pattern in a config cannot stall the authorize stage.
 */
export const toolPattern: (pattern: string) => (toolId: string) => boolean = globMatcher;

/** A matcher for a list of patterns (any of them); absent or empty: every tool. */
export function toolPatterns(patterns: readonly string[] | undefined): (toolId: string) => boolean {
  if (!patterns || patterns.length === 0 || patterns.includes('*')) return () => true;
  const tests = patterns.map(toolPattern);
  return (toolId) => tests.some((test) => test(toolId));
}
