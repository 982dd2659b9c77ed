import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool, ToolResult } from '../../foundation/model/tool.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { backoffDelay, type RetryEvent, retry } from './retry.js';

const idempotent = makeTool('ns:get', { annotations: { idempotentHint: true } });
const readOnly = makeTool('ns:read', { annotations: { readOnlyHint: true } });
const write = makeTool('ns:write');

function call(tool: Tool, signal = new AbortController().signal): RunCall {
  return {
    tool,
    args: {},
    ctx: { signal, callId: 'c', caller: { identity: 'a' }, progress: () => {}, log: silentLogger },
  };
}

/** A backend stand-in that throws `errors` in turn, then succeeds. */
function failing(...errors: GatewayError[]) {
  let runs = 0;
  const next = async (): Promise<ToolResult> => {
    const error = errors[runs++];
    if (error) throw error;
    return { content: [{ type: 'text', text: 'ok' }] };
  };
  return { next, runs: () => runs };
}

const unavailable = () => new GatewayError('backend_unavailable', 'connection closed');

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('retry', () => {
  it('tries an idempotent tool again after retryable failures, with growing delays', async () => {
    const events: RetryEvent[] = [];
    const middleware = retry({ random: () => 0, onRetry: (e) => events.push(e) });
    const backend = failing(unavailable(), unavailable());
    const done = middleware(call(idempotent), backend.next);
    await vi.advanceTimersByTimeAsync(49);
    expect(backend.runs()).toBe(1);
    await vi.advanceTimersByTimeAsync(1); // 100/2 = 50 ms with no jitter
    expect(backend.runs()).toBe(2);
    await vi.advanceTimersByTimeAsync(100); // 200/2
    await expect(done).resolves.toEqual({ content: [{ type: 'text', text: 'ok' }] });
    expect(backend.runs()).toBe(3);
    expect(events).toEqual([
      { toolId: 'ns:get', retry: 1, delayMs: 50, code: 'backend_unavailable' },
      { toolId: 'ns:get', retry: 2, delayMs: 100, code: 'backend_unavailable' },
    ]);
  });

  it('gives up after maxRetries and throws the last failure', async () => {
    const middleware = retry({ maxRetries: 2, baseDelayMs: 10 });
    const backend = failing(
      unavailable(),
      unavailable(),
      new GatewayError('timeout', 'third'),
      unavailable(),
    );
    const done = middleware(call(readOnly), backend.next);
    const outcome = expect(done).rejects.toThrow('third');
    await vi.runAllTimersAsync();
    await outcome;
    expect(backend.runs()).toBe(3);
  });

  it('never retries a tool that is neither read-only nor idempotent', async () => {
    const middleware = retry();
    const backend = failing(unavailable());
    await expect(middleware(call(write), backend.next)).rejects.toThrow('connection closed');
    expect(backend.runs()).toBe(1);
  });

  it('never retries a tool’s own error, a caller fault or a failure marked not retryable', async () => {
    const middleware = retry();
    for (const error of [
      new GatewayError('execution_failed', 'tool error'),
      new GatewayError('validation_input', 'bad'),
      new GatewayError('rate_limited', 'slow down', { details: { retryAfterMs: 10 } }),
      new GatewayError('backend_unavailable', 'final', { retryable: false }),
    ]) {
      const backend = failing(error);
      await expect(middleware(call(idempotent), backend.next)).rejects.toBe(error);
      expect(backend.runs()).toBe(1);
    }
  });

  it('never retries once the call’s signal aborted (its timeout or its client)', async () => {
    const middleware = retry();
    const controller = new AbortController();
    const backend = failing(unavailable());
    controller.abort(new GatewayError('timeout', 'call timed out'));
    await expect(middleware(call(idempotent, controller.signal), backend.next)).rejects.toThrow(
      'connection closed',
    );
    expect(backend.runs()).toBe(1);
  });

  it('stops waiting and gives up when the signal aborts during the backoff', async () => {
    const middleware = retry({ baseDelayMs: 1000 });
    const controller = new AbortController();
    const backend = failing(unavailable(), unavailable());
    const done = middleware(call(idempotent, controller.signal), backend.next);
    const outcome = expect(done).rejects.toThrow('connection closed');
    await vi.advanceTimersByTimeAsync(10);
    controller.abort(new GatewayError('cancelled', 'client left'));
    await outcome;
    await vi.runAllTimersAsync();
    expect(backend.runs()).toBe(1);
  });

  it('waits at least what the failure asks for, and not at all when that is longer than maxDelayMs', async () => {
    const middleware = retry({ random: () => 0, maxDelayMs: 2000 });
    const asks = (ms: number) =>
      new GatewayError('backend_unavailable', `wait ${ms}`, { details: { retryAfterMs: ms } });
    const patient = failing(asks(700));
    const done = middleware(call(idempotent), patient.next);
    await vi.advanceTimersByTimeAsync(699);
    expect(patient.runs()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    await expect(done).resolves.toBeDefined();

    const breakerOpen = failing(asks(30_000));
    await expect(middleware(call(idempotent), breakerOpen.next)).rejects.toThrow('wait 30000');
    expect(breakerOpen.runs()).toBe(1);
  });

  it('maxRetries 0 never retries', async () => {
    const backend = failing(unavailable());
    await expect(retry({ maxRetries: 0 })(call(idempotent), backend.next)).rejects.toThrow();
    expect(backend.runs()).toBe(1);
  });

  it('refuses options it cannot honour', () => {
    expect(() => retry({ maxRetries: -1 })).toThrow(/maxRetries/);
    expect(() => retry({ baseDelayMs: 0.5 })).toThrow(/baseDelayMs/);
  });
});

describe('backoffDelay', () => {
  it('doubles from base, is capped at max, and jitters within the upper half', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, 100, 500, () => 0))).toEqual([50, 100, 200, 250]);
    expect([0, 1, 2, 3].map((n) => backoffDelay(n, 100, 500, () => 0.999999))).toEqual([100, 200, 400, 500]);
  });
});
