import { boundedRegExp } from './bounded-regexp.js';

/**
 * A matcher for `pattern`, where `*` stands for any run of characters (`:` included, so
 * `github:*` matches every tool of the namespace) and everything else matches itself. A pattern
 * without `*` is an exact comparison.
 */
export function globMatcher(pattern: string): (value: string) => boolean {
  if (!pattern.includes('*')) return (value) => value === pattern;
  if (/^\*+$/.test(pattern)) return () => true;
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  // Linear time: `*a*a*a*a*a*a*a*b` on a backtracking RegExp takes seconds against a 40-character id.
  const regex = boundedRegExp(`^${source}$`, 's');
  return (value) => regex.test(value);
}
