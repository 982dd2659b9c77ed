import { describe, expect, it } from 'vitest';
import { makeTool } from '../../../test/support/test-tools.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ToolResult } from '../../foundation/model/tool.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import type { RunCall } from '../../foundation/ports/run-middleware.js';
import { type ServerQueueLimits, serverQueues } from './server-queues.js';

function callTo(sourceId: string, signal = new AbortController().signal): RunCall {
  return {
    tool: makeTool(`${sourceId.replace('mcp:', '')}:t`, {
      origin: { sourceId, kind: 'mcp', originalName: 't' },
    }),
    args: {},
    ctx: { signal, callId: 'c', caller: { identity: 'a' }, progress: () => {}, log: silentLogger },
  };
}

/** A call that runs until released. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    open,
    run: async (): Promise<ToolResult> => {
      await opened;
      return { content: [] };
    },
  };
}

function setup(limits: Record<string, ServerQueueLimits>) {
  const depths: [string, number][] = [];
  const waits: [string, boolean][] = [];
  const queues = serverQueues({
    limitsOf: (sourceId) => limits[sourceId],
    observer: {
      depth: (server, waiting) => depths.push([server, waiting]),
      waited: (server, _seconds, timedOut) => waits.push([server, timedOut]),
    },
  });
  return { queues, depths, waits };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('serverQueues', () => {
  it('runs at most maxConcurrent calls of a server, the others first come first served', async () => {
    const { queues, depths, waits } = setup({ 'mcp:slow': { maxConcurrent: 2, queueMs: 10_000 } });
    const gates = [gate(), gate(), gate(), gate()];
    const order: number[] = [];
    const calls = gates.map((g, i) =>
      queues.middleware(callTo('mcp:slow'), async () => {
        order.push(i);
        return g.run();
      }),
    );
    await settle();
    expect(order).toEqual([0, 1]);
    expect(queues.snapshot()).toEqual({ slow: { running: 2, waiting: 2 } });
    gates[1]?.open();
    await settle();
    expect(order).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    await Promise.all(calls);
    expect(order).toEqual([0, 1, 2, 3]);
    expect(queues.snapshot()).toEqual({});
    expect(depths).toEqual([
      ['slow', 1],
      ['slow', 2],
      ['slow', 1],
      ['slow', 0],
    ]);
    expect(waits).toEqual([
      ['slow', false],
      ['slow', false],
    ]);
  });

  it('never makes a call to another server wait behind a busy one', async () => {
    const { queues } = setup({
      'mcp:slow': { maxConcurrent: 1, queueMs: 10_000 },
      'mcp:fast': { maxConcurrent: 1, queueMs: 10_000 },
    });
    const slow = gate();
    const busy = [
      queues.middleware(callTo('mcp:slow'), slow.run),
      queues.middleware(callTo('mcp:slow'), slow.run),
    ];
    const fast = await queues.middleware(callTo('mcp:fast'), async () => ({
      content: [{ type: 'text', text: 'fast' }],
    }));
    expect(fast.content).toEqual([{ type: 'text', text: 'fast' }]);
    expect(queues.snapshot()).toEqual({ slow: { running: 1, waiting: 1 } });
    slow.open();
    await Promise.all(busy);
  });

  it('answers rate_limited with retryAfterMs after queueMs, and at once with queueMs 0', async () => {
    const { queues, waits } = setup({
      'mcp:slow': { maxConcurrent: 1, queueMs: 30 },
      'mcp:strict': { maxConcurrent: 1, queueMs: 0 },
    });
    const slow = gate();
    const running = queues.middleware(callTo('mcp:slow'), slow.run);
    const refused = await queues.middleware(callTo('mcp:slow'), slow.run).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect((refused as GatewayError).code).toBe('rate_limited');
    expect((refused as GatewayError).details).toMatchObject({
      server: 'slow',
      maxConcurrent: 1,
      queueMs: 30,
    });
    expect((refused as GatewayError).details?.retryAfterMs).toBeGreaterThan(0);
    expect(waits).toEqual([['slow', true]]);
    const strict = gate();
    const first = queues.middleware(callTo('mcp:strict'), strict.run);
    await expect(queues.middleware(callTo('mcp:strict'), strict.run)).rejects.toMatchObject({
      code: 'rate_limited',
    });
    slow.open();
    strict.open();
    await Promise.all([running, first]);
    // The slot of a refused call was never taken: the next call runs at once.
    expect((await queues.middleware(callTo('mcp:slow'), async () => ({ content: [] }))).content).toEqual([]);
  });

  it('takes a cancelled call out of the queue at once, and leaves unqueued sources alone', async () => {
    const { queues } = setup({ 'mcp:slow': { maxConcurrent: 1, queueMs: 10_000 } });
    const slow = gate();
    const running = queues.middleware(callTo('mcp:slow'), slow.run);
    const controller = new AbortController();
    const queued = queues.middleware(callTo('mcp:slow', controller.signal), slow.run);
    await settle();
    controller.abort();
    await expect(queued).rejects.toMatchObject({ code: 'cancelled' });
    expect(queues.snapshot()).toEqual({ slow: { running: 1, waiting: 0 } });
    // A source without limits (a module, OpenAPI) runs whatever is running.
    expect((await queues.middleware(callTo('local'), async () => ({ content: [] }))).content).toEqual([]);
    slow.open();
    await running;
  });

  it('frees the slot of a call that failed', async () => {
    const { queues } = setup({ 'mcp:s': { maxConcurrent: 1, queueMs: 0 } });
    await expect(
      queues.middleware(callTo('mcp:s'), async () => {
        throw new GatewayError('execution_failed', 'boom');
      }),
    ).rejects.toMatchObject({ code: 'execution_failed' });
    expect((await queues.middleware(callTo('mcp:s'), async () => ({ content: [] }))).content).toEqual([]);
  });
});
