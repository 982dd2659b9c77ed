import { describeRoundKeyContract } from './round-key.contract.js';
import { inMemoryRoundKey } from './round-key.js';

describeRoundKeyContract('inMemoryRoundKey', () => {
  const store = inMemoryRoundKey();
  return [store, store];
});
