import { describe, expect, it } from 'vitest';
import { optionFailure } from '../../../test/support/expect-failure.js';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ToolResult } from '../../foundation/model/tool.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { type BreakerStateChange, circuitBreakers, outcomeOf } from './circuit-breakers.js';

function callTo(sourceId: string, signal = new AbortController().signal): RunCall {
  return {
    tool: makeTool(`${sourceId}:t`, { origin: { sourceId, kind: 'mcp', originalName: 't' } }),
    args: {},
    ctx: { signal, callId: 'c', caller: { identity: 'a' }, progress: () => {}, log: silentLogger },
  };
}

const ok = async (): Promise<ToolResult> => ({ content: [] });
const down = async (): Promise<ToolResult> => {
  throw new GatewayError('backend_unavailable', 'connection refused');
};

function setup() {
  const clock = { t: 0 };
  const changes: BreakerStateChange[] = [];
  const breakers = circuitBreakers({
    failureThreshold: 2,
    cooldownMs: 1000,
    now: () => clock.t,
    onStateChange: (change) => changes.push(change),
  });
  return { breakers, clock, changes };
}

describe('outcomeOf', () => {
  it('counts only the source’s own failures', () => {
    expect(outcomeOf(new GatewayError('backend_unavailable', 'x'))).toBe('failure');
    expect(outcomeOf(new GatewayError('timeout', 'x'))).toBe('failure');
    expect(outcomeOf(new Error('bug'))).toBe('failure'); // internal
    expect(outcomeOf(new GatewayError('execution_failed', 'x'))).toBe('success');
    expect(outcomeOf(new GatewayError('validation_input', 'x'))).toBe('success');
    expect(outcomeOf(new GatewayError('cancelled', 'x'))).toBe('neutral');
    expect(outcomeOf(new GatewayError('rate_limited', 'x'))).toBe('neutral');
  });
});

describe('circuitBreakers', () => {
  it('fails fast with backend_unavailable once a source failed failureThreshold times in a row', async () => {
    const { breakers, changes } = setup();
    await expect(breakers.middleware(callTo('mcp:a'), down)).rejects.toThrow('connection refused');
    await expect(breakers.middleware(callTo('mcp:a'), down)).rejects.toThrow('connection refused');
    let ran = false;
    const error = await breakers
      .middleware(callTo('mcp:a'), async () => {
        ran = true;
        return { content: [] };
      })
      .catch((e: GatewayError) => e);
    expect(ran).toBe(false);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ code: 'backend_unavailable', retryable: true });
    expect((error as GatewayError).details).toMatchObject({
      breaker: 'open',
      source: 'mcp:a',
      retryAfterMs: 1000,
      consecutiveFailures: 2,
    });
    expect(changes).toEqual([{ sourceId: 'mcp:a', from: 'closed', to: 'open', consecutiveFailures: 2 }]);
  });

  it('keeps sources apart', async () => {
    const { breakers } = setup();
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    expect(breakers.state('mcp:a')).toBe('open');
    await expect(breakers.middleware(callTo('openapi:b'), ok)).resolves.toEqual({ content: [] });
    expect(breakers.state('openapi:b')).toBe('closed');
  });

  it('does not count a tool’s own errors or cancellations', async () => {
    const { breakers } = setup();
    const toolError = async (): Promise<ToolResult> => {
      throw new GatewayError('execution_failed', 'the tool said no');
    };
    const cancelled = async (): Promise<ToolResult> => {
      throw new GatewayError('cancelled', 'client went away');
    };
    for (const next of [toolError, cancelled, toolError, cancelled]) {
      await breakers.middleware(callTo('mcp:a'), next).catch(() => {});
    }
    expect(breakers.state('mcp:a')).toBe('closed');
  });

  it('after the cool-down lets one probe through; its success closes the circuit', async () => {
    const { breakers, clock, changes } = setup();
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    clock.t = 1000;
    let release!: () => void;
    const probe = breakers.middleware(
      callTo('mcp:a'),
      () => new Promise<ToolResult>((resolve) => (release = () => resolve({ content: [] }))),
    );
    // While the probe runs, everyone else is refused.
    const refused = await breakers.middleware(callTo('mcp:a'), ok).catch((e: GatewayError) => e);
    expect((refused as GatewayError).details).toMatchObject({ breaker: 'half_open' });
    release();
    await probe;
    expect(breakers.state('mcp:a')).toBe('closed');
    await expect(breakers.middleware(callTo('mcp:a'), ok)).resolves.toBeDefined();
    expect(changes.map((c) => c.to)).toEqual(['open', 'half_open', 'closed']);
  });

  it('a failed probe opens the circuit for another cool-down', async () => {
    const { breakers, clock } = setup();
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    clock.t = 1000;
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    expect(breakers.state('mcp:a')).toBe('open');
    clock.t = 1999;
    const error = await breakers.middleware(callTo('mcp:a'), ok).catch((e: GatewayError) => e);
    expect((error as GatewayError).details).toMatchObject({ breaker: 'open', retryAfterMs: 1 });
  });

  it('a probe that never settles ends with its call’s signal (timeout counts as a failure)', async () => {
    const { breakers, clock } = setup();
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    clock.t = 1000;
    const controller = new AbortController();
    void breakers.middleware(callTo('mcp:a', controller.signal), () => new Promise<ToolResult>(() => {}));
    expect(breakers.state('mcp:a')).toBe('half_open');
    controller.abort(new GatewayError('timeout', 'too slow'));
    expect(breakers.state('mcp:a')).toBe('open');
  });

  it('a cancelled probe lets the next call probe', async () => {
    const { breakers, clock } = setup();
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    clock.t = 1000;
    const controller = new AbortController();
    void breakers.middleware(callTo('mcp:a', controller.signal), () => new Promise<ToolResult>(() => {}));
    controller.abort(new GatewayError('cancelled', 'client left'));
    await expect(breakers.middleware(callTo('mcp:a'), ok)).resolves.toBeDefined();
    expect(breakers.state('mcp:a')).toBe('closed');
  });

  it('lists every source it has seen', async () => {
    const { breakers } = setup();
    await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    await breakers.middleware(callTo('mcp:b'), ok);
    expect(breakers.snapshot()).toEqual([
      { sourceId: 'mcp:a', state: 'closed', consecutiveFailures: 1 },
      { sourceId: 'mcp:b', state: 'closed', consecutiveFailures: 0 },
    ]);
  });

  it('refuses options it cannot honour', () => {
    expect(optionFailure(() => circuitBreakers({ failureThreshold: 0 }))).toMatch(/failureThreshold/);
    expect(optionFailure(() => circuitBreakers({ cooldownMs: -1 }))).toMatch(/cooldownMs/);
  });

  it('counts the failures of one incident once: a crash that took many calls down does not open the circuit', async () => {
    const { breakers } = setup();
    const crashed = async (): Promise<ToolResult> => {
      throw new GatewayError('backend_unavailable', 'closed the connection during the call', {
        details: { incident: 'mcp:a#1' },
      });
    };
    await Promise.all(
      Array.from({ length: 20 }, () => breakers.middleware(callTo('mcp:a'), crashed).catch(() => {})),
    );
    expect(breakers.state('mcp:a')).toBe('closed');
    // A second, different incident is a second failure: at the threshold of two, it opens.
    await breakers
      .middleware(callTo('mcp:a'), async () => {
        throw new GatewayError('backend_unavailable', 'again', { details: { incident: 'mcp:a#2' } });
      })
      .catch(() => {});
    expect(breakers.state('mcp:a')).toBe('open');
  });

  it('recovered() half-opens an open circuit at once, long before the cool-down', async () => {
    const { breakers, changes } = setup();
    for (let i = 0; i < 2; i++) await breakers.middleware(callTo('mcp:a'), down).catch(() => {});
    expect(breakers.state('mcp:a')).toBe('open');
    breakers.recovered('mcp:a');
    expect(breakers.state('mcp:a')).toBe('half_open');
    expect(changes.at(-1)).toMatchObject({ sourceId: 'mcp:a', from: 'open', to: 'half_open' });
    await breakers.middleware(callTo('mcp:a'), ok);
    expect(breakers.state('mcp:a')).toBe('closed');
    // A source never seen, or closed, is left alone.
    breakers.recovered('mcp:b');
    expect(breakers.state('mcp:b')).toBe('closed');
  });
});
