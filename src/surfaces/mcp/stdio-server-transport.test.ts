import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { StdioServerTransport } from './stdio-server-transport.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

async function wire(maxLineLength?: number) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const transport = new StdioServerTransport(stdin, stdout, maxLineLength);
  const received: JSONRPCMessage[] = [];
  const errors: string[] = [];
  let closes = 0;
  transport.onmessage = (message) => received.push(message);
  transport.onerror = (error) => errors.push(error.message);
  transport.onclose = () => closes++;
  let written = '';
  stdout.on('data', (chunk: Buffer) => (written += chunk.toString()));
  await transport.start();
  const answers = () =>
    written
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { stdin, stdout, transport, received, errors, answers, closes: () => closes };
}

describe('StdioServerTransport', () => {
  it('reads one message per line and writes one per line', async () => {
    const { stdin, transport, received, answers, errors } = await wire();
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e"}}\n');
    stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\r\n\n');
    await tick();
    expect(received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'e' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    await transport.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    await tick();
    expect(answers()).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [] } }]);
    expect(errors).toEqual([]);
  });

  it.each([
    [
      'not JSON',
      'nope',
      { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the line is not JSON' } },
    ],
    [
      'a request with a numeric method',
      '{"jsonrpc":"2.0","id":"r1","method":7}',
      {
        jsonrpc: '2.0',
        id: 'r1',
        error: { code: -32600, message: 'Invalid Request: "method" must be a string' },
      },
    ],
    [
      'a request with a fractional id (answered without one)',
      '{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}',
      {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: "id" must be a string or an integer' },
      },
    ],
    [
      'a notification with array params',
      '{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}',
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: "params" must be an object' } },
    ],
    [
      'a batch',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
      { jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request: batches are not read on stdio' } },
    ],
    [
      'a request with a key no message has',
      '{"jsonrpc":"2.0","id":3,"method":"ping","extra":1}',
      {
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32600,
          message: 'Invalid Request: not a JSON-RPC 2.0 request, notification or response',
        },
      },
    ],
  ])('answers %s with an error, reports it, and reads the next line', async (_name, line, answer) => {
    const { stdin, received, answers, errors } = await wire();
    stdin.write(`${line}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
    await tick();
    expect(answers()).toEqual([answer]);
    expect(errors).toEqual([answer.error.message]);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('does not answer a malformed response, only reports it', async () => {
    const { stdin, answers, errors } = await wire();
    stdin.write('{"jsonrpc":"2.0","id":4,"result":"text"}\n');
    await tick();
    expect(answers()).toEqual([]);
    expect(errors).toHaveLength(1);
  });

  it('answers a line longer than the limit once and reads on', async () => {
    const { stdin, received, answers } = await wire(48);
    stdin.write(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"${'x'.repeat(64)}"}}\n`);
    stdin.write('{"jsonrpc":"2.0","id":6,"method":"ping"}\n');
    await tick();
    expect(answers()).toEqual([
      {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: a line is longer than 48 characters' },
      },
    ]);
    expect(received).toEqual([{ jsonrpc: '2.0', id: 6, method: 'ping' }]);
  });

  it('closes once when stdin ends, and refuses to send after', async () => {
    const { stdin, transport, closes } = await wire();
    stdin.end();
    await tick();
    await tick();
    expect(closes()).toBe(1);
    await transport.close();
    expect(closes()).toBe(1);
    await expect(transport.send({ jsonrpc: '2.0', id: 1, result: {} })).rejects.toThrow(/closed/);
  });

  it('swallows a write failure that comes after it closed', async () => {
    const { stdout, transport, errors } = await wire();
    await transport.close();
    expect(() => stdout.emit('error', new Error('EPIPE'))).not.toThrow();
    expect(errors).toEqual([]);
  });

  it('closes when stdout fails', async () => {
    const { stdout, errors, closes } = await wire();
    stdout.emit('error', new Error('EPIPE'));
    await tick();
    expect(errors).toEqual(['EPIPE']);
    expect(closes()).toBe(1);
  });

  it('refuses to start twice', async () => {
    const { transport } = await wire();
    await expect(transport.start()).rejects.toThrow(/already started/);
  });
});
