import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureServerPath } from '../support/fixture-servers.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

/**
 * A 2026-07-28 client that gives up on a call a 2025-era server keeps asking about: the call does
 * not stay parked until its round expires. The downstream server (a stdio fixture) records each
 * call that ended cancelled, i.e. each `notifications/cancelled` the gateway sent it.
 */

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
};

/** A raw 2026-07-28 message (what a client library does not let a test shape freely). */
function send(url: string, message: Record<string, any>, signal?: AbortSignal): Promise<Response> {
  const method = String(message.method);
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(method === 'tools/call' ? { 'mcp-name': String(message.params.name) } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', ...message, params: { ...message.params, _meta: ENVELOPE } }),
    ...(signal ? { signal } : {}),
  });
}

async function call(
  url: string,
  id: number,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const response = await send(url, {
    id,
    method: 'tools/call',
    params: { name: 'asking__ask', arguments: args, ...extra },
  });
  return (await response.json()) as {
    result?: Record<string, any>;
    error?: { code: number; message: string };
  };
}

async function ready(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const response = await fetch(`${url}/readyz`).catch(() => undefined);
    if (response?.ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('gateway not ready');
}

describe('a 2026-07-28 client giving up on a call waiting for its input', { timeout: 60_000 }, () => {
  let dir: string;
  let log: string;
  let config: string;
  let gateway: RunningGateway;
  let url: string;

  /** How many times the downstream server recorded `line` (`started ask`, `cancelled ask`). */
  const count = async (line: string) =>
    (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((l) => l === line).length;
  const cancellations = () => count('cancelled ask');

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-round-cancel-'));
    log = path.join(dir, 'cancelled.log');
    config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      JSON.stringify({
        servers: {
          asking: {
            command: process.execPath,
            args: [fixtureServerPath('asking-server.mjs')],
            env: { ASKING_SERVER_LOG: log },
          },
        },
        tools: { builtin: false },
        exposure: 'flat',
        shutdown: { graceMs: 20_000 },
      }),
    );
    gateway = await startHttpGateway(['--config', config]);
    url = `${gateway.url}/mcp`;
    await ready(gateway.url);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it('asks, and carries the answer back (the round the others give up on)', async () => {
    const first = await call(url, 1, {});
    expect(first.result?.resultType).toBe('input_required');
    const [key] = Object.keys(first.result?.inputRequests ?? {});
    const done = await call(
      url,
      2,
      {},
      {
        inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
        requestState: first.result?.requestState,
      },
    );
    expect(done.result?.content?.[0]?.text).toBe('answered: accept');
  });

  it('ends the call when the client cancels the request that got the ask (notifications/cancelled)', async () => {
    const before = await cancellations();
    const asked = await call(url, 41, {});
    expect(asked.result?.resultType).toBe('input_required');
    const response = await send(url, {
      method: 'notifications/cancelled',
      params: { requestId: 41, reason: 'user left' },
    });
    expect(response.status).toBe(202);
    await vi.waitFor(async () => expect(await cancellations()).toBe(before + 1), { timeout: 10_000 });
    // The call is over: its state leads nowhere now.
    const [key] = Object.keys(asked.result?.inputRequests ?? {});
    const late = await call(
      url,
      42,
      {},
      {
        inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
        requestState: asked.result?.requestState,
      },
    );
    expect(late.error?.message).toMatch(/over or unknown/);
  });

  it('ignores a cancellation of a request that left nothing waiting', async () => {
    const before = await cancellations();
    const asked = await call(url, 51, {});
    const response = await send(url, { method: 'notifications/cancelled', params: { requestId: 999 } });
    expect(response.status).toBe(202);
    // The waiting call is still there: answering it finishes it.
    const [key] = Object.keys(asked.result?.inputRequests ?? {});
    const done = await call(
      url,
      52,
      {},
      {
        inputResponses: { [key as string]: { action: 'decline' } },
        requestState: asked.result?.requestState,
      },
    );
    expect(done.result?.content?.[0]?.text).toBe('answered: decline');
    expect(await cancellations()).toBe(before);
  });

  it('ends the call when the client drops the request of a round still running', async () => {
    const before = await cancellations();
    const started = await count('started ask');
    const abort = new AbortController();
    const pending = send(
      url,
      { id: 61, method: 'tools/call', params: { name: 'asking__ask', arguments: { delayMs: 5_000 } } },
      abort.signal,
    );
    // Once the round runs downstream (the tool waits before asking), the client goes away.
    await vi.waitFor(async () => expect(await count('started ask')).toBe(started + 1), { timeout: 10_000 });
    abort.abort();
    await expect(pending).rejects.toThrow();
    await vi.waitFor(async () => expect(await cancellations()).toBe(before + 1), { timeout: 10_000 });
  });

  it('at shutdown, ends the calls waiting on a client at once, tells their servers and counts them', async () => {
    const before = await cancellations();
    const asked = await call(url, 71, {});
    expect(asked.result?.resultType).toBe('input_required');
    const exited = new Promise<number | null>((resolve) =>
      gateway.child.once('exit', (code) => resolve(code)),
    );
    gateway.child.kill('SIGTERM');
    // Well within the 20 s grace: nothing waits on a client that would come back to no gateway.
    expect(await exited).toBe(0);
    const drained = gateway
      .stderr()
      .split('\n')
      .find((line) => line.includes('in-flight calls drained'));
    expect(JSON.parse(drained ?? '{}')).toMatchObject({ endedRounds: 1 });
    expect(await cancellations()).toBe(before + 1);
  });
});
