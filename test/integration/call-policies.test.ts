import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { GatewayError } from '../../src/foundation/model/gateway-error.js';
import { faultyServer, waitFor } from '../support/fixture-servers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/*
 * The call policies — result cache, rate limits, retries, circuit breakers — through an in-process
 * gateway and the official SDK client (REST for the HTTP side of rate limiting). The fixture tools
 * (test/fixtures/operations/policy-tools.ts) count their runs per `key`, so each test uses a fresh
 * key and reads the count back through `ops:runs`, which is never cached.
 */

const MODULE = fileURLToPath(new URL('../fixtures/operations/policy-tools.ts', import.meta.url));
/** No retries unless a test wants them: each run counts exactly once. */
const NO_RETRIES = { retries: { maxRetries: 0 } };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'aperture-policies-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Served extends AsyncDisposable {
  gateway: Gateway;
  client: Client;
  url: string;
}

/** A gateway with the policy tools (plus `raw`), served over HTTP, an SDK client connected. */
async function serve(raw: Record<string, unknown>): Promise<Served> {
  const gateway = await gatewayFrom(
    { tools: { builtin: false, modules: [MODULE] }, ...raw },
    { backoff: { minMs: 20, maxMs: 200 } },
  );
  const listener = await gateway.serveHttp('127.0.0.1', 0);
  const client = new Client({ name: 'policies', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${listener.url}/mcp`)));
  return {
    gateway,
    client,
    url: listener.url,
    async [Symbol.asyncDispose]() {
      await client.close();
      await gateway.close();
    },
  };
}

interface WireError {
  code: string;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

/** `run_tool` over MCP: the structured result, or the structured error of an isError result. */
async function runTool(
  client: Client,
  toolId: string,
  args: Record<string, unknown>,
): Promise<{ ok: true; value: Record<string, unknown> } | { ok: false; error: WireError }> {
  const result = await client.callTool({ name: 'run_tool', arguments: { tool_id: toolId, args } });
  const structured = result.structuredContent as Record<string, unknown> | undefined;
  if (result.isError) return { ok: false, error: (structured as { error: WireError }).error };
  return { ok: true, value: structured ?? {} };
}

async function value(client: Client, toolId: string, args: Record<string, unknown>) {
  const outcome = await runTool(client, toolId, args);
  if (!outcome.ok) throw new Error(`${toolId} failed: ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

async function failure(client: Client, toolId: string, args: Record<string, unknown>): Promise<WireError> {
  const outcome = await runTool(client, toolId, args);
  if (outcome.ok) throw new Error(`${toolId} was expected to fail, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

async function runsOf(client: Client, key: string): Promise<number> {
  return (await value(client, 'ops:runs', { key })).runs as number;
}

describe('result cache', () => {
  it('answers a repeated call of a read-only tool from the cache, whatever the argument order', async () => {
    await using served = await serve({ cache: {} });
    const { client, gateway } = served;
    const key = randomUUID();
    const first = await value(client, 'ops:lookup', { key, a: 1, b: 2 });
    const second = await value(client, 'ops:lookup', { b: 2, a: 1, key });
    expect(first).toEqual({ key, runs: 1 });
    expect(second).toEqual({ key, runs: 1 });
    expect(await runsOf(client, key)).toBe(1);
    expect(gateway.policies.cache?.stats()).toMatchObject({ hits: 1, misses: 1, entries: 1 });

    // Other arguments are another entry.
    expect(await value(client, 'ops:lookup', { key, a: 2, b: 2 })).toEqual({ key, runs: 2 });
  });

  it('never caches a tool with side effects', async () => {
    await using served = await serve({ cache: {} });
    const key = randomUUID();
    await value(served.client, 'ops:touch', { key });
    expect(await value(served.client, 'ops:touch', { key })).toEqual({ key, runs: 2 });
    expect(served.gateway.policies.cache?.stats()).toMatchObject({ hits: 0, entries: 0 });
  });

  it('keeps scopes apart: a client of another toolset runs the tool, one of the same toolset shares', async () => {
    await using served = await serve({
      cache: {},
      toolsets: [
        { name: 'x', namespaces: ['ops'] },
        { name: 'y', namespaces: ['ops'] },
      ],
    });
    const clientOf = async (toolset: string) => {
      const client = new Client({ name: `policies-${toolset}`, version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp/${toolset}`)));
      return client;
    };
    const [x1, y, x2] = [await clientOf('x'), await clientOf('y'), await clientOf('x')];
    try {
      const key = randomUUID();
      expect(await value(x1, 'ops:lookup', { key })).toEqual({ key, runs: 1 });
      expect(await value(y, 'ops:lookup', { key })).toEqual({ key, runs: 2 });
      expect(await value(x2, 'ops:lookup', { key })).toEqual({ key, runs: 1 });
      // The whole catalog (no toolset) is a scope of its own.
      expect(await value(served.client, 'ops:lookup', { key })).toEqual({ key, runs: 3 });
      expect(await runsOf(served.client, key)).toBe(3);
    } finally {
      await Promise.all([x1.close(), y.close(), x2.close()]);
    }
  });

  it('partition identity keeps identities apart', async () => {
    await using served = await serve({ cache: { partition: 'identity' } });
    const key = randomUUID();
    const call = (identity: string) =>
      served.gateway.scope.run('ops:lookup', { key }, { caller: { identity } });
    await call('alice');
    await call('bob');
    await call('alice');
    expect(await runsOf(served.client, key)).toBe(2);
  });

  it('overrides turn caching off for a read-only tool and on for another', async () => {
    await using served = await serve({
      cache: {},
      overrides: { 'ops:lookup': { cache: false }, 'ops:touch': { cache: true } },
    });
    const key = randomUUID();
    await value(served.client, 'ops:lookup', { key });
    await value(served.client, 'ops:lookup', { key });
    expect(await runsOf(served.client, key)).toBe(2);
    const other = randomUUID();
    await value(served.client, 'ops:touch', { key: other });
    expect(await value(served.client, 'ops:touch', { key: other })).toEqual({ key: other, runs: 1 });
  });

  it('never caches a failure: the call after it runs the tool, and its success is cached', async () => {
    await using served = await serve({ cache: {}, resilience: NO_RETRIES });
    const key = randomUUID();
    const args = { key, failures: 1 };
    expect((await failure(served.client, 'ops:flaky_read', args)).code).toBe('backend_unavailable');
    expect(await value(served.client, 'ops:flaky_read', args)).toEqual({ attempts: 2 });
    expect(await value(served.client, 'ops:flaky_read', args)).toEqual({ attempts: 2 });
    expect(await runsOf(served.client, key)).toBe(2);
  });

  it('is off without a cache section', async () => {
    await using served = await serve({});
    const key = randomUUID();
    await value(served.client, 'ops:lookup', { key });
    await value(served.client, 'ops:lookup', { key });
    expect(await runsOf(served.client, key)).toBe(2);
    expect(served.gateway.policies.cache).toBeUndefined();
  });
});

describe('rate limits', () => {
  it('refuses the call over perMinute with rate_limited and retryAfterMs, other tools unaffected', async () => {
    await using served = await serve({ rateLimits: [{ tool: 'ops:look*', perMinute: 3 }] });
    const key = randomUUID();
    for (let i = 0; i < 3; i++) await value(served.client, 'ops:lookup', { key });
    const refused = await failure(served.client, 'ops:lookup', { key });
    expect(refused.code).toBe('rate_limited');
    expect(refused.retryable).toBe(true);
    const retryAfterMs = refused.details?.retryAfterMs as number;
    expect(retryAfterMs).toBeGreaterThan(15_000);
    expect(retryAfterMs).toBeLessThanOrEqual(20_000);
    // The refused call never reached the tool.
    expect(await runsOf(served.client, key)).toBe(3);
    await value(served.client, 'ops:touch', { key: randomUUID() });
  });

  it('answers 429 with Retry-After over REST', async () => {
    await using served = await serve({ rateLimits: [{ identity: '*', perMinute: 1, per: [] }] });
    const post = () =>
      fetch(`${served.url}/api/tools/ops:touch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: randomUUID() }),
      });
    expect((await post()).status).toBe(200);
    const refused = await post();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    const body = (await refused.json()) as { success: boolean; error: WireError };
    expect(body.success).toBe(false);
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.details?.retryAfterMs).toBeGreaterThan(58_000);
  });
});

describe('retries', () => {
  it('an idempotent tool that fails twice then succeeds is retried to success', async () => {
    await using served = await serve({ resilience: { retries: { baseDelayMs: 10 } } });
    const key = randomUUID();
    expect(await value(served.client, 'ops:flaky_read', { key, failures: 2 })).toEqual({ attempts: 3 });
    expect(await runsOf(served.client, key)).toBe(3);
  });

  it('gives up after maxRetries (default 2) with the last failure', async () => {
    await using served = await serve({ resilience: { retries: { baseDelayMs: 10 } } });
    const key = randomUUID();
    const error = await failure(served.client, 'ops:flaky_read', { key, failures: 5 });
    expect(error.code).toBe('backend_unavailable');
    expect(error.message).toContain('attempt 3');
    expect(await runsOf(served.client, key)).toBe(3);
  });

  it('never retries a tool that is not idempotent', async () => {
    await using served = await serve({ resilience: { retries: { baseDelayMs: 10 } } });
    const key = randomUUID();
    expect((await failure(served.client, 'ops:flaky_write', { key, failures: 2 })).code).toBe(
      'backend_unavailable',
    );
    expect(await runsOf(served.client, key)).toBe(1);
  });

  it('maxRetries 0 turns retries off', async () => {
    await using served = await serve({ resilience: NO_RETRIES });
    const key = randomUUID();
    await failure(served.client, 'ops:flaky_read', { key, failures: 1 });
    expect(await runsOf(served.client, key)).toBe(1);
  });
});

async function marks(file: string): Promise<Record<string, unknown>[]> {
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('circuit breaker', () => {
  it('opens after N timeouts of a connected server, fails fast without reaching it, and closes after a probe', async () => {
    const markFile = path.join(dir, 'marks.jsonl');
    const cooldownMs = 3000;
    await using served = await serve({
      servers: { f: faultyServer({ FAULTY_MARK_FILE: markFile }, { timeoutMs: 100 }) },
      resilience: { ...NO_RETRIES, circuitBreaker: { failureThreshold: 3, cooldownMs } },
    });
    const { gateway, client } = served;
    await gateway.whenReady();
    expect(await value(client, 'f:add', { a: 1, b: 2 })).toEqual({ sum: 3 });

    // The server hangs: three calls in a row time out, which opens its circuit. (A server that is
    // down is not counted call by call: its outage is one incident, see crash-recovery.test.ts.)
    for (let i = 0; i < 3; i++) {
      expect((await failure(client, 'f:sleep', { ms: 5000 })).code).toBe('timeout');
    }
    await waitFor('open circuit', () => gateway.policies.breakers?.state('mcp:f') === 'open');

    // Within the cool-down, calls fail fast and never reach the server.
    const callsBefore = (await marks(markFile)).filter((m) => m.event === 'call').length;
    const started = performance.now();
    const open = await failure(client, 'f:add', { a: 2, b: 2 });
    expect(performance.now() - started).toBeLessThan(500);
    expect(open.code).toBe('backend_unavailable');
    expect(open.retryable).toBe(true);
    expect(open.details).toMatchObject({ breaker: 'open', source: 'mcp:f', consecutiveFailures: 3 });
    const retryAfterMs = open.details?.retryAfterMs as number;
    expect(retryAfterMs).toBeGreaterThan(0);
    expect(retryAfterMs).toBeLessThanOrEqual(cooldownMs);
    expect((await marks(markFile)).filter((m) => m.event === 'call').length).toBe(callsBefore);

    // After the cool-down one probe goes through; its success closes the circuit.
    await new Promise((resolve) => setTimeout(resolve, retryAfterMs + 50));
    expect(await value(client, 'f:add', { a: 2, b: 2 })).toEqual({ sum: 4 });
    expect(gateway.policies.breakers?.state('mcp:f')).toBe('closed');
    expect(await value(client, 'f:add', { a: 3, b: 3 })).toEqual({ sum: 6 });
  });

  it('a tool’s own error results do not open the circuit', async () => {
    await using served = await serve({
      servers: { f: faultyServer() },
      resilience: { ...NO_RETRIES, circuitBreaker: { failureThreshold: 2 } },
    });
    await served.gateway.whenReady();
    for (let i = 0; i < 4; i++) {
      expect((await failure(served.client, 'f:fail', { message: 'no' })).code).toBe('execution_failed');
    }
    expect(served.gateway.policies.breakers?.state('mcp:f')).toBe('closed');
    expect(await value(served.client, 'f:add', { a: 1, b: 1 })).toEqual({ sum: 2 });
  });

  it('stays out of the way when disabled', async () => {
    await using served = await serve({ resilience: { circuitBreaker: { enabled: false } } });
    expect(served.gateway.policies.breakers).toBeUndefined();
    // A GatewayError thrown by a local tool keeps its code (sanity check of the fixture's failures).
    const error = await served.gateway.scope
      .run('ops:flaky_write', { key: randomUUID(), failures: 1 }, { caller: { identity: 't' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('backend_unavailable');
  });
});
