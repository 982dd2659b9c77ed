import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { callerPartition, resultCacheKey } from './cache-key.js';

describe('resultCacheKey', () => {
  const tool = makeTool('ns:read');

  it('ignores argument key order and starts with the tool id', () => {
    const a = resultCacheKey(tool, { a: 1, b: { c: 2, d: 3 } }, 'p');
    const b = resultCacheKey(tool, { b: { d: 3, c: 2 }, a: 1 }, 'p');
    expect(a).toBe(b);
    expect(a.startsWith('ns:read\u0000')).toBe(true);
  });

  it('keeps a key short whatever the arguments, and still tells long arguments apart', () => {
    const long = (tail: string) => ({ text: `${'x'.repeat(10_000)}${tail}`, n: 1 });
    const key = resultCacheKey(tool, long('a'), 'p');
    expect(key.length).toBeLessThan(150);
    expect(resultCacheKey(tool, { n: 1, text: `${'x'.repeat(10_000)}a` }, 'p')).toBe(key);
    expect(resultCacheKey(tool, long('b'), 'p')).not.toBe(key);
  });

  it('differs by arguments, partition and tool', () => {
    const base = resultCacheKey(tool, { a: 1 }, 'p');
    expect(resultCacheKey(tool, { a: 2 }, 'p')).not.toBe(base);
    expect(resultCacheKey(tool, { a: 1 }, 'q')).not.toBe(base);
    expect(resultCacheKey(makeTool('ns:other'), { a: 1 }, 'p')).not.toBe(base);
  });

  it('changes when the tool is re-listed with another schema under the same id', () => {
    const changed = makeTool('ns:read', { inputSchema: { type: 'object', properties: { a: {} } } });
    expect(resultCacheKey(changed, { a: 1 }, 'p')).not.toBe(resultCacheKey(tool, { a: 1 }, 'p'));
    const same = makeTool('ns:read');
    expect(resultCacheKey(same, { a: 1 }, 'p')).toBe(resultCacheKey(tool, { a: 1 }, 'p'));
  });
});

describe('callerPartition', () => {
  it('by scope: the same toolset shares, another toolset or none does not, identities share', () => {
    const x1 = callerPartition({ identity: 'alice', toolset: 'x' }, 'scope');
    expect(callerPartition({ identity: 'bob', toolset: 'x' }, 'scope')).toBe(x1);
    expect(callerPartition({ identity: 'alice', toolset: 'y' }, 'scope')).not.toBe(x1);
    expect(callerPartition({ identity: 'alice' }, 'scope')).not.toBe(x1);
  });

  it('by scope: granted toolsets count, in any order', () => {
    const granted = (toolsets: string[]) => ({ identity: 'a', toolsets });
    expect(callerPartition(granted(['a', 'b']), 'scope')).toBe(callerPartition(granted(['b', 'a']), 'scope'));
    expect(callerPartition(granted(['a']), 'scope')).not.toBe(callerPartition(granted(['a', 'b']), 'scope'));
    expect(callerPartition(granted(['a']), 'scope')).not.toBe(callerPartition({ identity: 'a' }, 'scope'));
  });

  it('by identity: the same scope is not enough', () => {
    expect(callerPartition({ identity: 'alice', toolset: 'x' }, 'identity')).not.toBe(
      callerPartition({ identity: 'bob', toolset: 'x' }, 'identity'),
    );
  });

  it('by identity: an API key and a JWT subject of the same name are different callers', () => {
    const apiKey = callerPartition({ identity: 'ka', authMethod: 'api_key' }, 'identity');
    const jwt = callerPartition({ identity: 'ka', authMethod: 'jwt' }, 'identity');
    expect(jwt).not.toBe(apiKey);
    // Nor is either the unauthenticated caller of that name.
    expect(callerPartition({ identity: 'ka' }, 'identity')).not.toBe(apiKey);
    expect(callerPartition({ identity: 'ka' }, 'identity')).not.toBe(jwt);
  });
});
