import { describe, expect, it } from 'vitest';
import { globMatcher } from './glob-matcher.js';

describe('globMatcher', () => {
  it('matches exactly without a star', () => {
    const match = globMatcher('github:create_issue');
    expect(match('github:create_issue')).toBe(true);
    expect(match('github:create_issues')).toBe(false);
    expect(match('xgithub:create_issue')).toBe(false);
  });

  it('lets a star stand for any run of characters, colons included', () => {
    expect(globMatcher('github:*')('github:create_issue')).toBe(true);
    expect(globMatcher('github:*')('gitlab:create_issue')).toBe(false);
    expect(globMatcher('*:search*')('web:search_news')).toBe(true);
    expect(globMatcher('*')('anything:at:all')).toBe(true);
    expect(globMatcher('a*c')('ac')).toBe(true);
  });

  it('takes regex characters literally', () => {
    expect(globMatcher('a.b*')('a.bc')).toBe(true);
    expect(globMatcher('a.b*')('axbc')).toBe(false);
    expect(globMatcher('(x)+*')('(x)+y')).toBe(true);
  });
});
