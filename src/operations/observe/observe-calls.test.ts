import { describe, expect, it } from 'vitest';
import { optionFailure } from '../../../test/support/expect-failure.js';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ToolResult } from '../../foundation/model/tool.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import type { CallObserver, CallOutcome } from './call-observer.js';
import { observeCalls } from './observe-calls.js';

function call(controller = new AbortController()): RunCall {
  return {
    tool: makeTool('ns:tool'),
    args: {},
    ctx: {
      signal: controller.signal,
      callId: 'c1',
      caller: { identity: 'me' },
      progress: () => {},
      log: silentLogger,
    },
  };
}

/** An observer that records what it is told. */
function recorder() {
  const started: RunCall[] = [];
  const outcomes: CallOutcome[] = [];
  const observer: CallObserver = {
    start(c) {
      started.push(c);
      return (outcome) => outcomes.push(outcome);
    },
  };
  return { observer, started, outcomes };
}

const OK: ToolResult = { content: [{ type: 'text', text: 'ok' }] };

describe('observeCalls', () => {
  it('reports a successful call once to every observer, with one duration, and returns its result', async () => {
    const a = recorder();
    const b = recorder();
    const middleware = observeCalls([a.observer, b.observer]);
    const theCall = call();
    const result = await middleware(theCall, async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return OK;
    });
    expect(result).toBe(OK);
    expect(a.started).toEqual([theCall]);
    expect(a.outcomes).toHaveLength(1);
    expect(a.outcomes[0]?.error).toBeUndefined();
    expect(a.outcomes[0]?.durationMs).toBeGreaterThanOrEqual(15);
    expect(b.outcomes).toEqual(a.outcomes);
  });

  it('reports a failure with its code and rethrows the same error', async () => {
    const a = recorder();
    const failure = new GatewayError('execution_failed', 'boom');
    await expect(
      observeCalls([a.observer])(call(), async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(a.outcomes.map((o) => o.error?.code)).toEqual(['execution_failed']);
  });

  it('normalises a thrown non-GatewayError to internal', async () => {
    const a = recorder();
    await expect(
      observeCalls([a.observer])(call(), async () => {
        throw new Error('bug');
      }),
    ).rejects.toThrow('bug');
    expect(a.outcomes[0]?.error?.code).toBe('internal');
  });

  it('ends a call whose backend never settles when the signal aborts, with the abort reason', async () => {
    const a = recorder();
    const controller = new AbortController();
    void observeCalls([a.observer])(call(controller), () => new Promise<ToolResult>(() => {}));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(a.outcomes).toHaveLength(0);
    controller.abort(new GatewayError('timeout', 'too slow'));
    expect(a.outcomes.map((o) => o.error?.code)).toEqual(['timeout']);
  });

  it('reports once when the abort comes first and the backend then rejects', async () => {
    const a = recorder();
    const controller = new AbortController();
    const running = observeCalls([a.observer])(
      call(controller),
      () =>
        new Promise<ToolResult>((_, reject) =>
          controller.signal.addEventListener('abort', () =>
            setTimeout(() => reject(new GatewayError('execution_failed', 'late')), 1),
          ),
        ),
    );
    controller.abort(new GatewayError('cancelled', 'client went away'));
    await expect(running).rejects.toThrow('late');
    expect(a.outcomes.map((o) => o.error?.code)).toEqual(['cancelled']);
  });

  it('ignores an observer that throws, so the call is unchanged and the others still hear of it', async () => {
    const a = recorder();
    const broken: CallObserver = {
      start: () => () => {
        throw new Error('observer bug');
      },
    };
    const throwsAtStart: CallObserver = {
      start: () => {
        throw new Error('observer bug at start');
      },
    };
    const result = await observeCalls([broken, throwsAtStart, a.observer])(call(), async () => OK);
    expect(result).toBe(OK);
    expect(a.outcomes).toHaveLength(1);
  });

  it('needs at least one observer', () => {
    expect(optionFailure(() => observeCalls([]))).toMatch(/at least one observer/);
  });
});
