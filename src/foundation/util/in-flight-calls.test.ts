import { describe, expect, it } from 'vitest';
import { GatewayError } from '../model/gateway-error.js';
import { InFlightCalls } from './in-flight-calls.js';

/** A call that runs until its controller aborts, then rejects with the reason. */
function abortable(controller: AbortController): Promise<never> {
  return new Promise((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
}

describe('InFlightCalls', () => {
  it('refuses new calls once draining, but not calls nested in a call in flight', async () => {
    const calls = new InFlightCalls();
    let release: () => void = () => {};
    const outer = new AbortController();
    let stray: unknown;
    const parent = calls.run(outer, async () => {
      await new Promise<void>((resolve) => (release = resolve));
      // Named with a signal that is no call's in flight: refused like any new call.
      stray = await calls
        .run(new AbortController(), async () => 'ran', new AbortController().signal)
        .catch((e: unknown) => e);
      // A chain's next step, started after the drain began: part of its parent, so it runs.
      return calls.run(new AbortController(), async () => 'nested ran', outer.signal);
    });
    const drained = calls.drain(5_000);
    const refused = await calls.run(new AbortController(), async () => 'ran').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ code: 'backend_unavailable', details: { reason: 'shutdown' } });
    release();
    expect(await parent).toBe('nested ran');
    expect(stray).toMatchObject({ code: 'backend_unavailable', details: { reason: 'shutdown' } });
    expect(await drained).toEqual({ finished: 1, cut: 0 });
    // Once its parent has finished, the same signal names no call in flight.
    const late = await calls
      .run(new AbortController(), async () => 'ran', outer.signal)
      .catch((e: unknown) => e);
    expect(late).toMatchObject({ code: 'backend_unavailable' });
  });

  it('after the grace period, aborts the calls left with backend_unavailable, the newest first', async () => {
    const calls = new InFlightCalls();
    const order: string[] = [];
    const outer = new AbortController();
    const inner = new AbortController();
    outer.signal.addEventListener('abort', () => order.push('outer'));
    inner.signal.addEventListener('abort', () => order.push('inner'));
    const running = calls.run(outer, () => calls.run(inner, () => abortable(inner), outer.signal));
    const failure = running.catch((e: unknown) => e);
    expect(calls.size).toBe(2);
    expect(await calls.drain(20)).toEqual({ finished: 0, cut: 2 });
    expect(order).toEqual(['inner', 'outer']);
    expect(await failure).toMatchObject({ code: 'backend_unavailable', details: { reason: 'shutdown' } });
    expect(calls.size).toBe(0);
  });
});
