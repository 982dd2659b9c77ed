import { MemoryStateStore } from './memory-state-store.js';
import { runStateStoreContract } from './state-store.contract.js';

runStateStoreContract('MemoryStateStore', () => new MemoryStateStore());
