import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { effectiveHint, idMatcher, toolsetPredicate } from './toolset-predicate.js';

const tools = [
  makeTool('github:create_issue', { tags: ['issues', 'write'], annotations: { destructiveHint: false } }),
  makeTool('github:list_issues', { tags: ['issues', 'read'], annotations: { readOnlyHint: true } }),
  makeTool('github:repos/list', { tags: ['read'], annotations: { readOnlyHint: true } }),
  makeTool('time:now', { tags: ['time'], annotations: { readOnlyHint: true, openWorldHint: false } }),
  makeTool('time:now:2', { tags: ['time'], annotations: { readOnlyHint: true } }),
  makeTool('fs:delete_file', {
    tags: ['files'],
    annotations: { destructiveHint: true, idempotentHint: true },
  }),
];

function members(definition: Parameters<typeof toolsetPredicate>[0]): string[] {
  const isMember = toolsetPredicate(definition);
  return tools.filter(isMember).map((t) => t.id);
}

describe('toolsetPredicate', () => {
  it('admits every tool when the definition has no conditions', () => {
    expect(members({ name: 'all' })).toHaveLength(tools.length);
  });

  it('namespaces: the tool is in one of them', () => {
    expect(members({ name: 'x', namespaces: ['time', 'fs'] })).toEqual([
      'time:now',
      'time:now:2',
      'fs:delete_file',
    ]);
  });

  it('tags: any of them, normalised like tool tags', () => {
    expect(members({ name: 'x', tags: ['READ', 'Files'] })).toEqual([
      'github:list_issues',
      'github:repos/list',
      'fs:delete_file',
    ]);
  });

  it('tools: exact ids and globs; * crosses "/" and ":" in ids', () => {
    expect(members({ name: 'x', tools: ['time:now'] })).toEqual(['time:now']);
    expect(members({ name: 'x', tools: ['github:*'] })).toEqual([
      'github:create_issue',
      'github:list_issues',
      'github:repos/list',
    ]);
    expect(members({ name: 'x', tools: ['*:list_*', 'time:*'] })).toEqual([
      'github:list_issues',
      'time:now',
      'time:now:2',
    ]);
    expect(members({ name: 'x', tools: ['github:{create,list}_issue*'] })).toEqual([
      'github:create_issue',
      'github:list_issues',
    ]);
  });

  it('exclude wins over every inclusion', () => {
    expect(
      members({ name: 'x', namespaces: ['github'], exclude: ['github:create_*', 'github:repos/*'] }),
    ).toEqual(['github:list_issues']);
  });

  it('annotations: required values, with MCP defaults for undeclared hints', () => {
    expect(members({ name: 'x', annotations: { readOnlyHint: true } })).toEqual([
      'github:list_issues',
      'github:repos/list',
      'time:now',
      'time:now:2',
    ]);
    // openWorldHint defaults to true: only the tool declaring false is left out.
    expect(members({ name: 'x', annotations: { openWorldHint: false } })).toEqual(['time:now']);
    // destructiveHint defaults to true; read-only tools are never destructive.
    expect(members({ name: 'x', annotations: { destructiveHint: false } })).toEqual([
      'github:create_issue',
      'github:list_issues',
      'github:repos/list',
      'time:now',
      'time:now:2',
    ]);
    expect(members({ name: 'x', annotations: { destructiveHint: true, idempotentHint: true } })).toEqual([
      'fs:delete_file',
    ]);
  });

  it('every given condition must hold (namespaces AND tags AND annotations)', () => {
    expect(
      members({
        name: 'x',
        namespaces: ['github'],
        tags: ['read', 'write'],
        annotations: { readOnlyHint: true },
      }),
    ).toEqual(['github:list_issues', 'github:repos/list']);
    expect(members({ name: 'x', namespaces: ['time'], tools: ['github:*'] })).toEqual([]);
  });

  it('is evaluated against the tool it is given (membership follows changes to a tool)', () => {
    const isMember = toolsetPredicate({ name: 'x', tags: ['beta'] });
    const before = makeTool('a:b', { tags: [] });
    expect(isMember(before)).toBe(false);
    expect(isMember({ ...before, tags: ['beta'] })).toBe(true);
  });
});

describe('idMatcher', () => {
  it('is undefined for no patterns and case-sensitive otherwise', () => {
    expect(idMatcher(undefined)).toBeUndefined();
    expect(idMatcher([])).toBeUndefined();
    expect(idMatcher(['Time:*'])?.('time:now')).toBe(false);
  });
});

describe('effectiveHint', () => {
  it('applies the MCP defaults', () => {
    expect(effectiveHint({}, 'readOnlyHint')).toBe(false);
    expect(effectiveHint({}, 'destructiveHint')).toBe(true);
    expect(effectiveHint({}, 'idempotentHint')).toBe(false);
    expect(effectiveHint({}, 'openWorldHint')).toBe(true);
    expect(effectiveHint({ readOnlyHint: true, destructiveHint: true }, 'destructiveHint')).toBe(false);
  });
});
