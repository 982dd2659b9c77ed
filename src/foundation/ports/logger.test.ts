import { describe, expect, it, vi } from 'vitest';
import { type Logger, lazyChild } from './logger.js';

function recording() {
  const lines: unknown[][] = [];
  const child = vi.fn((bindings: Record<string, unknown>): Logger => {
    const log = (...args: unknown[]) => void lines.push([bindings, ...args]);
    return { debug: log, info: log, warn: log, error: log, child: () => parent };
  });
  const parent: Logger = { debug() {}, info() {}, warn() {}, error() {}, child };
  return { parent, child, lines };
}

describe('lazyChild', () => {
  it('makes the child on its first use, once, and logs through it as given', () => {
    const { parent, child, lines } = recording();
    const log = lazyChild(parent, { component: 'x' });
    expect(child).not.toHaveBeenCalled();
    log.warn({ a: 1 }, 'first');
    log.debug({ b: 2 });
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      [{ component: 'x' }, { a: 1 }, 'first'],
      [{ component: 'x' }, { b: 2 }],
    ]);
  });
});
