import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/** A keep-alive TCP connection: what it received, and whether it was reset. */
async function keptAlive(
  url: string,
): Promise<{ socket: Socket; received: () => string; ended: Promise<string> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const ended = new Promise<string>((resolve) => {
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.once('close', () => resolve('closed'));
  });
  return { socket, received: () => received, ended };
}

const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n`;

async function answered(received: () => string, count: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((received().match(/HTTP\/1\.1 \d{3}/g) ?? []).length < count) {
    if (Date.now() > deadline) throw new Error(`no answer ${count}: ${received()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// Regression ("Hardening, round two"): SIGTERM's drain closed idle keep-alive connections at once,
// so a request already on its way on one was reset (ECONNRESET) instead of answered 503.
describe('draining with requests in transit', () => {
  let gateway: Gateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('answers a request whose bytes arrived as the drain began with 503 and the error body, never a reset', async () => {
    gateway = await gatewayFrom({ shutdown: { graceMs: 100 } });
    const { url } = await gateway.serveHttp('127.0.0.1', 0);
    const connections = await Promise.all(Array.from({ length: 5 }, () => keptAlive(url)));
    for (const c of connections) c.socket.write(request('/healthz'));
    await Promise.all(connections.map((c) => answered(c.received, 1)));
    // The next requests are on their way on the idle connections when the drain starts.
    for (const c of connections) c.socket.write(request('/api/tools?limit=1'));
    const drained = gateway.drain(100);
    for (const c of connections) {
      await answered(c.received, 2);
      const second = c.received().slice(c.received().lastIndexOf('HTTP/1.1'));
      expect(second).toMatch(/^HTTP\/1\.1 503/);
      expect(second.toLowerCase()).toContain('connection: close');
      expect(second).toContain('"code":"backend_unavailable"');
      // Closed after the answer, cleanly.
      expect(await c.ended).toBe('closed');
    }
    await drained;
  });

  it('stops accepting new connections while draining', async () => {
    gateway = await gatewayFrom({ shutdown: { graceMs: 100 } });
    const { url } = await gateway.serveHttp('127.0.0.1', 0);
    const drained = gateway.drain(100);
    await expect(keptAlive(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await drained;
  });
});
