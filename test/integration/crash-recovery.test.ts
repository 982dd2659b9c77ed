import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { GatewayError } from '../../src/foundation/model/gateway-error.js';
import type { ToolResult } from '../../src/foundation/model/tool.js';
import { faultyServer, waitFor } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/**
 * A downstream server that crashes is one event for the circuit breaker, whatever number of calls
 * it takes down with it; a server that is reconnecting is not an open circuit; and a circuit
 * opened for other reasons half-opens as soon as the server is back. Real stdio servers, crashed
 * for real (the fixture's `crash` tool exits the process).
 */
const caller = { caller: { identity: 'test' } };
const FAST = { backoff: { minMs: 20, maxMs: 100 } };
const NO_RETRIES = { retries: { maxRetries: 0 } };

let dir: string;
const open: Gateway[] = [];
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-crash-'));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function start(raw: Record<string, unknown>): Promise<Gateway> {
  const gateway = await gatewayFrom({ tools: { builtin: false }, ...raw }, FAST);
  open.push(gateway);
  await gateway.whenReady();
  return gateway;
}

function state(gateway: Gateway, name: string) {
  return gateway.downstream.find((s) => s.name === name)?.snapshot().state;
}

async function outcome(promise: Promise<ToolResult>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return error instanceof GatewayError ? error.code : `non-gateway: ${String(error)}`;
  }
}

describe('a crash is one event, not N failures', () => {
  it('a server that crashes with many calls in flight does not open its circuit; calls succeed once it is back', async () => {
    const gateway = await start({
      // All 20 calls in flight at once: above the default queue bound (16), the crash call would
      // wait behind calls that end only when it has crashed the server.
      servers: { f: { ...faultyServer(), maxConcurrent: 64 } },
      // Defaults of the breaker: five consecutive failures, 30 s cool-down.
      resilience: NO_RETRIES,
    });
    const inFlight = Array.from({ length: 20 }, () =>
      outcome(gateway.scope.run('f:sleep', { ms: 20_000 }, caller)),
    );
    // Let the calls reach the server before it dies.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await outcome(gateway.scope.run('f:crash', {}, caller))).toBe('backend_unavailable');
    const outcomes = await Promise.all(inFlight);
    expect(outcomes.every((o) => o === 'backend_unavailable')).toBe(true);
    // Calls made while it restarts fail fast, and do not count either.
    for (let i = 0; i < 6 && state(gateway, 'f') !== 'connected'; i++) {
      await outcome(gateway.scope.run('f:echo', { text: 'x' }, caller));
    }
    await waitFor('restart', () => state(gateway, 'f') === 'connected');
    expect(gateway.policies.breakers?.state('mcp:f')).not.toBe('open');
    const back = await gateway.scope.run('f:echo', { text: 'back' }, caller);
    expect(back.content).toEqual([{ type: 'text', text: 'back' }]);
    expect(gateway.policies.breakers?.state('mcp:f')).toBe('closed');
  });

  it('a server down for a while (restarts failing) is one outage: the first call after it is back succeeds', async () => {
    const blocker = path.join(dir, 'block');
    const gateway = await start({
      servers: { f: faultyServer({ FAULTY_FAIL_IF_EXISTS: blocker }) },
      resilience: NO_RETRIES,
    });
    await writeFile(blocker, '');
    expect(await outcome(gateway.scope.run('f:crash', {}, caller))).toBe('backend_unavailable');
    await waitFor('failed state', () => state(gateway, 'f') === 'failed');
    for (let i = 0; i < 10; i++) {
      expect(await outcome(gateway.scope.run('f:echo', { text: 'x' }, caller))).toBe('backend_unavailable');
    }
    expect(gateway.policies.breakers?.state('mcp:f')).toBe('closed');
    await rm(blocker);
    await waitFor('restart', () => state(gateway, 'f') === 'connected');
    expect(await outcome(gateway.scope.run('f:echo', { text: 'x' }, caller))).toBe('ok');
  });

  it('a circuit opened by a hung server half-opens as soon as the server is back after a restart', async () => {
    const gateway = await start({
      servers: { f: faultyServer({}, { timeoutMs: 100 }) },
      resilience: { ...NO_RETRIES, circuitBreaker: { failureThreshold: 3, cooldownMs: 600_000 } },
    });
    // Three calls that time out one after the other: three failures of a connected server.
    for (let i = 0; i < 3; i++) {
      expect(await outcome(gateway.scope.run('f:sleep', { ms: 5_000 }, caller))).toBe('timeout');
    }
    // The breaker records a timed-out call when the backend's own promise settles, just after.
    await waitFor('the circuit to open', () => gateway.policies.breakers?.state('mcp:f') === 'open');
    // The open circuit refuses calls without reaching the server.
    expect(await outcome(gateway.scope.run('f:echo', { text: 'x' }, caller))).toBe('backend_unavailable');
    // The server is restarted (killed; the gateway starts it again).
    const server = gateway.downstream.find((s) => s.name === 'f');
    const pid = server?.pid();
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, 'SIGKILL');
    await waitFor('the crash to be seen', () => state(gateway, 'f') !== 'connected');
    await waitFor('restart', () => state(gateway, 'f') === 'connected');
    // Long before the 10-minute cool-down: the server is back, so one probe goes through.
    expect(gateway.policies.breakers?.state('mcp:f')).toBe('half_open');
    expect(await outcome(gateway.scope.run('f:echo', { text: 'x' }, caller))).toBe('ok');
    expect(gateway.policies.breakers?.state('mcp:f')).toBe('closed');
  });
});
