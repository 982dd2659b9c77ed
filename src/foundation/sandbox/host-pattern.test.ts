import { describe, expect, it } from 'vitest';
import {
  anyHostMatches,
  hostMatches,
  hostPatternProblem,
  parseHostPattern,
  parseHostPatterns,
} from './host-pattern.js';

describe('host patterns', () => {
  it.each([
    ['api.github.com', 'api.github.com', 443, true],
    ['api.github.com', 'API.GitHub.com', 80, true],
    ['api.github.com:443', 'api.github.com', 443, true],
    ['api.github.com:443', 'api.github.com', 80, false],
    ['*.example.com', 'a.b.example.com', 443, true],
    ['*.example.com', 'example.com', 443, false],
    ['*.example.com', 'badexample.com', 443, false],
    ['127.0.0.1:8080', '127.0.0.1', 8080, true],
    ['127.0.0.1:8080', '127.0.0.1', 8081, false],
    ['[::1]:8080', '::1', 8080, true],
    ['*', 'anything.test', 1, true],
    ['host:*', 'host', 9, true],
  ])('%s matches %s:%d → %s', (pattern, host, port, expected) => {
    const parsed = parseHostPattern(pattern);
    if (typeof parsed === 'string') throw new Error(parsed);
    expect(hostMatches(parsed, host, port)).toBe(expected);
  });

  it.each([
    ['exa*mple.com', 'inside a name'],
    ['http://api.github.com', 'is a URL'],
    ['api.github.com:99999', 'no connection can use'],
    ['api.github.com:0', 'no connection can use'],
    ['', 'is empty'],
    ['bad_host!', 'not a valid host name'],
    ['300.1.1.1', 'not a valid IPv4'],
    ['a:b:c', 'several ":"'],
  ])('refuses %s (%s)', (pattern, words) => {
    expect(hostPatternProblem(pattern)).toContain(words);
  });

  it('matches against a list, and parseHostPatterns throws on a bad one', () => {
    const list = parseHostPatterns(['a.test:1', '*.b.test']);
    expect(anyHostMatches(list, 'x.b.test', 5)).toBe(true);
    expect(anyHostMatches(list, 'a.test', 2)).toBe(false);
    expect(() => parseHostPatterns(['x*y'])).toThrow(/x\*y/);
  });
});
