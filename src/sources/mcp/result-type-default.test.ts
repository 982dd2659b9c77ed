import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../foundation/ports/logger.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { acceptingMissingResultType, completed } from './result-type-default.js';

/** A logger that records its warnings. */
function recording(): { log: Logger; warnings: unknown[] } {
  const warnings: unknown[] = [];
  const log = { ...silentLogger, warn: (fields: unknown) => void warnings.push(fields) } as Logger;
  return { log, warnings };
}

/** A transport whose negotiated revision the test sets, delivering what the test hands it. */
function fakeTransport(protocolVersion: string | undefined) {
  const transport = {
    protocolVersion,
    onmessage: undefined as Transport['onmessage'],
    start: async () => {},
    send: async () => {},
    close: async () => {},
  };
  return transport;
}

describe('acceptingMissingResultType', () => {
  it('takes a result without resultType as complete, and says so once per server', () => {
    const { log, warnings } = recording();
    const message = { jsonrpc: '2.0', id: 1, result: { content: [] } };
    expect(completed(message, 'http://a.example/mcp', log)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [], resultType: 'complete' },
    });
    completed({ jsonrpc: '2.0', id: 2, result: {} }, 'http://a.example/mcp', log);
    expect(warnings).toEqual([{ url: 'http://a.example/mcp' }]);
    completed({ jsonrpc: '2.0', id: 3, result: {} }, 'http://b.example/mcp', log);
    expect(warnings).toHaveLength(2);
  });

  it('leaves results that say their type, errors, requests and notifications as they are', () => {
    const { log, warnings } = recording();
    const round = { jsonrpc: '2.0', id: 1, result: { resultType: 'input_required', inputRequests: {} } };
    const error = { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'no' } };
    const notification = { jsonrpc: '2.0', method: 'notifications/message', params: {} };
    const request = { jsonrpc: '2.0', id: 3, method: 'ping' };
    for (const message of [round, error, notification, request])
      expect(completed(message, 'http://c.example/mcp', log)).toBe(message);
    expect(warnings).toEqual([]);
  });

  it('only on a connection that negotiated 2026-07-28 (a 2025 result has no such field)', () => {
    const received: unknown[] = [];
    const legacy = fakeTransport('2025-11-25');
    acceptingMissingResultType(legacy as unknown as Transport, 'http://d.example/mcp', silentLogger);
    legacy.onmessage = (message) => void received.push(message);
    const plain = { jsonrpc: '2.0', id: 1, result: {} } as JSONRPCMessage;
    legacy.onmessage?.(plain);
    expect(received[0]).toBe(plain);

    const modern = fakeTransport('2026-07-28');
    acceptingMissingResultType(modern as unknown as Transport, 'http://d.example/mcp', silentLogger);
    modern.onmessage = (message) => void received.push(message);
    modern.onmessage?.(plain);
    expect(received[1]).toEqual({ jsonrpc: '2.0', id: 1, result: { resultType: 'complete' } });
  });
});
