import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  SERVING_INTERRUPT_BUDGET,
  TIER_UP_DELAY_MS,
  tierUpSooner,
  tierUpSoonerShortly,
} from './tier-up-sooner.js';

describe('tierUpSooner', () => {
  it('lowers the interrupt budget when the user set none', () => {
    const set: string[] = [];
    expect(tierUpSooner(['--enable-source-maps'], '--max-old-space-size=512', (f) => set.push(f))).toBe(true);
    expect(set).toEqual([`--interrupt-budget=${SERVING_INTERRUPT_BUDGET}`]);
    expect(SERVING_INTERRUPT_BUDGET).toBeLessThan(67_584);
  });

  it.each([
    [['--interrupt-budget=100000'], undefined],
    [['--interrupt_budget', '100000'], undefined],
    [[], '--max-old-space-size=512 --interrupt-budget=100000'],
  ])('leaves a budget the user set alone (%j, %j)', (execArgv, nodeOptions) => {
    const set: string[] = [];
    expect(tierUpSooner(execArgv, nodeOptions, (f) => set.push(f))).toBe(false);
    expect(set).toEqual([]);
  });

  it('names a flag this Node has', () => {
    // setFlagsFromString ignores a misspelt flag without a word: check the spelling against V8's list.
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toMatch(/^\s+--interrupt-budget \(/m);
  });
});

describe('tierUpSoonerShortly', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('applies the budget only after the delay, so the first answers run at the defaults', () => {
    vi.useFakeTimers();
    const apply = vi.fn();
    tierUpSoonerShortly(TIER_UP_DELAY_MS, apply);
    vi.advanceTimersByTime(TIER_UP_DELAY_MS - 1);
    expect(apply).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(apply).toHaveBeenCalledTimes(1);
  });
});
