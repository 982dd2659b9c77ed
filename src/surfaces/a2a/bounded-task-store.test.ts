import { describe, expect, it } from 'vitest';
import { optionFailure } from '../../../test/support/expect-failure.js';
import { BoundedTaskStore } from './bounded-task-store.js';
import { runTaskStoreContract } from './task-store.contract.js';

describe('BoundedTaskStore options', () => {
  it('refuses a maxTasks that is not an integer ≥ 1, as every factory refuses a bad option', () => {
    expect(optionFailure(() => new BoundedTaskStore(0))).toBe('A2A maxTasks must be an integer ≥ 1, got 0');
    expect(optionFailure(() => new BoundedTaskStore(2.5))).toBe(
      'A2A maxTasks must be an integer ≥ 1, got 2.5',
    );
  });
});

runTaskStoreContract('BoundedTaskStore', (maxTasks) => new BoundedTaskStore(maxTasks));
