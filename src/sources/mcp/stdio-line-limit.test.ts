import { Client } from '@modelcontextprotocol/client';
import { describe, expect, it, vi } from 'vitest';
import { fixtureServerPath } from '../../../test/support/fixture-servers.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { callFailure } from './call-failure.js';
import { StdioProcessTransport } from './stdio-process-transport.js';

// Regression ("Hardening, round two"): a stdio server answering a line longer than the limit
// left the call waiting for its timeout; it must fail at once, and the connection serve on.
describe('a downstream stdio answer over the line limit', () => {
  it('fails its call at once with payload_too_large, and the next calls are answered', async () => {
    const transport = new StdioProcessTransport({
      command: process.execPath,
      args: [fixtureServerPath('faulty-server.mjs')],
      env: {},
      log: silentLogger,
      maxLineLength: 10_000,
    });
    const client = new Client({ name: 'gateway', version: '1' });
    await client.connect(transport);
    try {
      const started = Date.now();
      const signal = new AbortController().signal;
      // Two at once: the over-long answer fails only its own call.
      const [big, echo] = await Promise.allSettled([
        client.callTool({ name: 'big', arguments: { bytes: 50_000 } }, { timeout: 10_000 }),
        client.callTool({ name: 'sleep', arguments: { ms: 200 } }, { timeout: 10_000 }),
      ]);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(big.status).toBe('rejected');
      const failure = callFailure((big as PromiseRejectedResult).reason, {
        server: 'faulty',
        signal,
        incident: () => '',
      });
      expect(failure).toMatchObject({
        code: 'payload_too_large',
        details: { server: 'faulty', limitChars: 10_000 },
      });
      expect(failure.message).toContain('server "faulty"');
      expect(echo.status).toBe('fulfilled');
      const after = await client.callTool({ name: 'echo', arguments: { text: 'still here' } });
      expect(after.content).toEqual([{ type: 'text', text: 'still here' }]);
      // Under the limit, answers pass as before.
      const small = await client.callTool({ name: 'big', arguments: { bytes: 5_000 } });
      expect((small.content as { text: string }[])[0]?.text).toHaveLength(5_000);
    } finally {
      await client.close();
    }
  });

  it('fails the request its head names at once, before the rest of the line arrives', async () => {
    // Writes `{"jsonrpc":"2.0","id":…` first (as many servers do), then the rest 3 s later.
    const script = `
      process.stdin.on('data', (d) => {
        const { id } = JSON.parse(String(d));
        process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"result":{"t":"' + 'x'.repeat(20000));
        setTimeout(() => process.stdout.write('"}}\\n{"jsonrpc":"2.0","id":99,"result":{}}\\n'), 3000);
      });`;
    const transport = new StdioProcessTransport({
      command: process.execPath,
      args: ['-e', script],
      env: {},
      log: silentLogger,
      maxLineLength: 10_000,
    });
    const received: { at: number; message: unknown }[] = [];
    transport.onmessage = (message) => void received.push({ at: Date.now(), message });
    await transport.start();
    try {
      const sent = Date.now();
      await transport.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} });
      await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 2_000 });
      expect((received[0]?.at ?? 0) - sent).toBeLessThan(2_000);
      expect(received[0]?.message).toMatchObject({ id: 7, error: { data: { code: 'payload_too_large' } } });
      // The line's end is dropped with it; what follows is read as usual.
      await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 6_000 });
      expect(received[1]?.message).toEqual({ jsonrpc: '2.0', id: 99, result: {} });
    } finally {
      await transport.close();
    }
  });
});
