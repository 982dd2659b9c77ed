import { describe, expect, it } from 'vitest';
import type { SessionRecord } from './session-directory.js';
import { recordAfter, recordOfInitialize } from './session-handshake.js';

const record: SessionRecord = {
  owner: 'o',
  endpoint: '/mcp',
  json: false,
  protocolVersion: '2025-06-18',
  clientInfo: { name: 'c', version: '1' },
  capabilities: { roots: {} },
};

describe('recordOfInitialize', () => {
  it("keeps what a rebuild needs of the client's initialize", () => {
    const body = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { sampling: {} },
        clientInfo: { name: 'x', version: '2' },
      },
    };
    expect(
      recordOfInitialize(body, { owner: 'o', endpoint: '/mcp/dev', json: true, toolset: 'dev' }),
    ).toEqual({
      owner: 'o',
      endpoint: '/mcp/dev',
      toolset: 'dev',
      json: true,
      protocolVersion: '2025-11-25',
      clientInfo: { name: 'x', version: '2' },
      capabilities: { sampling: {} },
    });
    expect(
      recordOfInitialize(body, { owner: 'o', endpoint: '/mcp', json: false, toolset: undefined }),
    ).not.toHaveProperty('toolset');
  });
});

describe('recordAfter', () => {
  it('is undefined for messages that change nothing a rebuild restores', () => {
    expect(
      recordAfter(record, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } }),
    ).toBeUndefined();
    expect(recordAfter(record, { jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
  });

  it('follows the log level and the subscriptions, in order, across a batch', () => {
    const changed = recordAfter(record, [
      { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'debug' } },
      { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'file:///a' } },
      { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'file:///b' } },
      { jsonrpc: '2.0', id: 4, method: 'resources/unsubscribe', params: { uri: 'file:///a' } },
    ]);
    expect(changed).toEqual({ ...record, logLevel: 'debug', subscriptions: ['file:///b'] });
    expect(record).not.toHaveProperty('logLevel');
  });
});
