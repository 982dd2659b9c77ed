import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { MemoryStateStore } from '../../foundation/ports/memory-state-store.js';
import { fingerprintTool } from './tool-fingerprint.js';
import { TRUST_SCOPE, TrustStore } from './trust-store.js';

const at = new Date('2026-01-01T00:00:00Z');
const v1 = fingerprintTool(makeTool('srv:a', { description: 'one' }));
const v2 = fingerprintTool(makeTool('srv:a', { description: 'two' }));

describe('TrustStore', () => {
  it('keeps records in the state store, where another store over the same state reads them', () => {
    const state = new MemoryStateStore();
    new TrustStore(state).put({ id: 'srv:a', trusted: { ...v1, at: at.toISOString() } });
    expect(new TrustStore(state).get('srv:a')?.trusted?.hash).toBe(v1.hash);
    expect(new TrustStore(state).list().map((r) => r.id)).toEqual(['srv:a']);
  });

  it('approves the pending version, and only the one reviewed', () => {
    const store = new TrustStore(new MemoryStateStore());
    store.put({
      id: 'srv:a',
      trusted: { ...v1, at: at.toISOString() },
      pending: { ...v2, at: at.toISOString(), changed: ['description'], findings: [] },
    });
    expect(store.pending().map((r) => r.id)).toEqual(['srv:a']);
    expect(store.approve('srv:a', at, v1.hash)).toBe('nothing_pending');
    expect(store.approve('srv:a', at, v2.hash)).toBe('approved');
    expect(store.get('srv:a')).toEqual({ id: 'srv:a', trusted: { ...v2, at: at.toISOString() } });
    expect(store.approve('srv:a', at)).toBe('nothing_pending');
    expect(store.approve('srv:unknown', at)).toBe('unknown');
  });

  it('reads a damaged record as never seen', () => {
    const state = new MemoryStateStore();
    state.set(TRUST_SCOPE, 'srv:a', { trusted: 'garbage' });
    state.set(TRUST_SCOPE, 'srv:b', 42);
    const store = new TrustStore(state);
    expect(store.get('srv:a')).toBeUndefined();
    expect(store.list()).toEqual([]);
  });
});
