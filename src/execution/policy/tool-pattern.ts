import { boundedRegExp } from '../../foundation/schema/bounded-regexp.js';

/**
 * A matcher for a rule's `tools` entry: `*` stands for any run of characters (`:` included, so
 * `github:*` matches every tool of the namespace); anything else matches itself. Linear-time, so a
 * hostile pattern in a config cannot stall the authorize stage.
 */
export function toolPattern(pattern: string): (toolId: string) => boolean {
  if (!pattern.includes('*')) return (toolId) => toolId === pattern;
  if (/^\*+$/.test(pattern)) return () => true;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const regex = boundedRegExp(`^${source}$`, 's');
  return (toolId) => regex.test(toolId);
}

/** A matcher for a list of patterns (any of them); absent or empty: every tool. */
export function toolPatterns(patterns: readonly string[] | undefined): (toolId: string) => boolean {
  if (!patterns || patterns.length === 0 || patterns.includes('*')) return () => true;
  const tests = patterns.map(toolPattern);
  return (toolId) => tests.some((test) => test(toolId));
}
