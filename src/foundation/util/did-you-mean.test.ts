import { describe, expect, it } from 'vitest';
import { closestKey, didYouMean } from './did-you-mean.js';

describe('closestKey', () => {
  it('finds typos: a missing, extra, changed or swapped letter, or another case', () => {
    const keys = ['command', 'args', 'env', 'url', 'timeoutMs', 'headers'];
    expect(closestKey('comand', keys)).toBe('command');
    expect(closestKey('commmand', keys)).toBe('command');
    expect(closestKey('arg', keys)).toBe('args');
    expect(closestKey('headres', keys)).toBe('headers');
    expect(closestKey('timeoutMS', keys)).toBe('timeoutMs');
    expect(closestKey('uri', keys)).toBe('url');
  });

  it('suggests nothing for words that are not near any key', () => {
    expect(closestKey('foo', ['command', 'args', 'env'])).toBeUndefined();
    expect(closestKey('environment', ['env'])).toBeUndefined();
    expect(didYouMean('zzz', ['a'])).toBe('');
    expect(didYouMean('servr', ['server', 'servers'])).toBe(' (did you mean "server"?)');
  });
});
