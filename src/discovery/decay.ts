/**
 * Exponential decay: what `value`, recorded at `at`, is worth at `now` when it halves every
 * `halfLifeMs`. Times in milliseconds; a time in the future counts as now.
 */
export function decayed(value: number, at: number, now: number, halfLifeMs: number): number {
  const elapsed = Math.max(0, now - at);
  return value * 0.5 ** (elapsed / halfLifeMs);
}
