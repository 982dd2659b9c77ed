import { describe, expect, it } from 'vitest';
import { BackgroundBacklog, firstOf } from './background-backlog.js';

describe('BackgroundBacklog', () => {
  function setup(options: { failing?: () => boolean } = {}) {
    const waiting = ['a', 'b', 'c', 'd', 'e'];
    const batches: string[][] = [];
    const failures: string[] = [];
    let drained = 0;
    const backlog = new BackgroundBacklog<string>(
      {
        next: (size) => waiting.slice(0, size),
        async run(batch) {
          if (options.failing?.()) throw new Error('down');
          batches.push(batch);
          waiting.splice(0, batch.length);
        },
        onFailure: (message) => failures.push(message),
        onDrained: () => drained++,
      },
      { batchSize: 2, retryMs: 10 },
    );
    return { backlog, waiting, batches, failures, drained: () => drained };
  }

  it('works the backlog off in batches, after the caller, then says it is drained', async () => {
    const { backlog, batches, drained } = setup();
    backlog.schedule();
    backlog.schedule(); // already at it: no second loop
    expect(batches).toEqual([]); // not before the caller's synchronous work is done
    await backlog.whenIdle();
    expect(batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(drained()).toBe(1);
  });

  it('stops on a failure, records it, and retries after the wait', async () => {
    let down = true;
    const { backlog, batches, failures, drained } = setup({ failing: () => down });
    backlog.schedule();
    await backlog.whenIdle();
    expect(backlog.lastError).toBe('down');
    expect(failures).toEqual(['down']);
    expect(batches).toEqual([]);
    backlog.schedule(); // waiting for the retry: nothing now
    await backlog.whenIdle();
    expect(failures).toHaveLength(1);
    down = false;
    await new Promise((resolve) => setTimeout(resolve, 30));
    await backlog.whenIdle();
    expect(batches).toHaveLength(3);
    expect(backlog.lastError).toBeUndefined();
    expect(drained()).toBe(1);
  });

  it('does nothing once closed, and cancels a pending retry', async () => {
    let calls = 0;
    const { backlog, batches } = setup({ failing: () => ++calls === 1 });
    backlog.schedule();
    await backlog.whenIdle();
    backlog.close();
    await new Promise((resolve) => setTimeout(resolve, 30));
    backlog.schedule();
    await backlog.whenIdle();
    expect(calls).toBe(1);
    expect(batches).toEqual([]);
  });
});

describe('firstOf', () => {
  it('takes the first items of any iterable, without walking the rest', () => {
    let walked = 0;
    function* numbers() {
      for (let i = 0; i < 1000; i++) {
        walked++;
        yield i;
      }
    }
    expect(firstOf(numbers(), 3)).toEqual([0, 1, 2]);
    expect(walked).toBe(3);
    expect(firstOf(new Set(['x', 'y']), 5)).toEqual(['x', 'y']);
    expect(firstOf(new Map([['k', 1]]), 0)).toEqual([]);
  });
});
