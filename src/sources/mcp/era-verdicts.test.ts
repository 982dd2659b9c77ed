import type { DiscoverResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { EraVerdicts } from './era-verdicts.js';

const discover = { supportedVersions: ['2026-07-28'] } as unknown as DiscoverResult;
const modern = { getDiscoverResult: () => discover };
const legacy = { getDiscoverResult: () => undefined };

describe('EraVerdicts', () => {
  it('keeps a modern server’s discover result and a legacy verdict, per key', () => {
    const verdicts = new EraVerdicts();
    verdicts.remember('a', modern);
    verdicts.remember('b', legacy);
    expect(verdicts.get('a')).toEqual({ kind: 'modern', discover });
    expect(verdicts.get('b')).toEqual({ kind: 'legacy' });
    verdicts.forget('a');
    expect(verdicts.get('a')).toBeUndefined();
  });

  it('keys by server and credentials, and keeps no credential in clear', () => {
    const a = EraVerdicts.key('http://127.0.0.1:1/mcp', { authorization: 'Bearer one' }, false);
    expect(EraVerdicts.key('http://127.0.0.1:1/mcp', { authorization: 'Bearer one' }, false)).toBe(a);
    expect(EraVerdicts.key('http://127.0.0.1:1/mcp', { authorization: 'Bearer two' }, false)).not.toBe(a);
    expect(EraVerdicts.key('http://127.0.0.1:1/mcp', { authorization: 'Bearer one' }, true)).not.toBe(a);
    expect(EraVerdicts.key('http://127.0.0.1:2/mcp', { authorization: 'Bearer one' }, false)).not.toBe(a);
    expect(a).not.toContain('one');
  });

  it('forgets a verdict after its time, and the oldest beyond its size', () => {
    let now = 0;
    const verdicts = new EraVerdicts(1000, 2, () => now);
    verdicts.remember('a', modern);
    now = 1001;
    expect(verdicts.get('a')).toBeUndefined();
    verdicts.remember('a', modern);
    verdicts.remember('b', modern);
    verdicts.remember('c', modern);
    expect(verdicts.get('a')).toBeUndefined();
    expect(verdicts.get('c')).toBeDefined();
  });
});
