import { describe, expect, it } from 'vitest';
import { inMemorySessionDirectory } from './in-memory-session-directory.js';
import { describeSessionDirectoryContract } from './session-directory.contract.js';

describeSessionDirectoryContract('inMemorySessionDirectory', (ttlMs) => {
  let clock = 1_000_000;
  return {
    directory: inMemorySessionDirectory({ ttlMs, now: () => clock }),
    elapse: async (ms) => {
      clock += ms;
    },
  };
});

describe('inMemorySessionDirectory options', () => {
  it('refuses a TTL that is not a positive integer', () => {
    expect(() => inMemorySessionDirectory({ ttlMs: 0 })).toThrow(/ttlMs must be an integer ≥ 1, got 0/);
    expect(() => inMemorySessionDirectory({ ttlMs: 1.5 })).toThrow(/config_invalid|ttlMs/);
  });
});
