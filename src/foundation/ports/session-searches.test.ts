import { describeSessionSearchesContract } from './session-searches.contract.js';
import { MemorySessionSearches } from './session-searches.js';

describeSessionSearchesContract('MemorySessionSearches', (ttlMs) => {
  let now = 0;
  return {
    searches: new MemorySessionSearches(ttlMs, () => now),
    elapse: async (ms) => {
      now += ms;
    },
  };
});
