import { JSONRPCMessageSchema } from '@modelcontextprotocol/core';
import { describe, expect, it } from 'vitest';
import { parseJsonRpcLine, readJsonRpcMessage } from './json-rpc-line.js';

/** What the SDK's schema makes of a line, or the fact that it refuses it. */
function bySchema(line: string): unknown {
  try {
    return JSONRPCMessageSchema.parse(JSON.parse(line));
  } catch {
    return 'refused';
  }
}
function byLine(line: string): unknown {
  try {
    return parseJsonRpcLine(line);
  } catch {
    return 'refused';
  }
}

describe('parseJsonRpcLine', () => {
  const lines = {
    'a result':
      '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi"}],"x":{"deep":[1,2]}}}',
    'a result, string id': '{"jsonrpc":"2.0","id":"a-1","result":{}}',
    'a result with _meta (the schema rewrites a bad serverInfo)':
      '{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":7,"k":1}}}',
    'a request': '{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"messages":[]}}',
    'a tools/call request':
      '{"jsonrpc":"2.0","id":"c-9","method":"tools/call","params":{"name":"echo","arguments":{"m":"é"}}}',
    'a request without params': '{"jsonrpc":"2.0","id":4,"method":"tools/list"}',
    'a request with _meta (the schema checks the progress token)':
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"e","_meta":{"progressToken":"p"}}}',
    'a request with a bad progress token':
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"e","_meta":{"progressToken":true}}}',
    'a request with array params': '{"jsonrpc":"2.0","id":6,"method":"tools/list","params":[]}',
    'a request with null params': '{"jsonrpc":"2.0","id":6,"method":"tools/list","params":null}',
    'a request with a numeric method': '{"jsonrpc":"2.0","id":6,"method":5}',
    'a request with a null id': '{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
    'a request with a fractional id': '{"jsonrpc":"2.0","id":0.5,"method":"tools/list"}',
    'a request with an extra key': '{"jsonrpc":"2.0","id":6,"method":"tools/list","extra":true}',
    'a request and a result at once': '{"jsonrpc":"2.0","id":6,"method":"tools/list","result":{}}',
    'a notification':
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}',
    'an error': '{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}',
    'an extra top-level key': '{"jsonrpc":"2.0","id":7,"result":{},"extra":1}',
    'a fractional id': '{"jsonrpc":"2.0","id":1.5,"result":{}}',
    'an unsafe integer id': '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
    'a null id': '{"jsonrpc":"2.0","id":null,"result":{}}',
    'an array result': '{"jsonrpc":"2.0","id":1,"result":[]}',
    'a null result': '{"jsonrpc":"2.0","id":1,"result":null}',
    'another version': '{"jsonrpc":"1.0","id":1,"result":{}}',
    'no version': '{"id":1,"result":{}}',
    'an array': '[{"jsonrpc":"2.0","id":1,"result":{}}]',
    'a string': '"hello"',
  };

  it.each(Object.entries(lines))('reads %s as the SDK schema does', (_name, line) => {
    expect(byLine(line)).toEqual(bySchema(line));
  });

  it('takes a plain request and a plain result as they are, and copies nothing', () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'e' } };
    const result = { jsonrpc: '2.0', id: 1, result: { content: [] } };
    expect(readJsonRpcMessage(request)).toBe(request);
    expect(readJsonRpcMessage(result)).toBe(result);
    // What goes through the schema comes back as its copy.
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect(readJsonRpcMessage(notification)).not.toBe(notification);
  });

  it('refuses what is not JSON', () => {
    expect(() => parseJsonRpcLine('this is not json')).toThrow();
  });

  it('refuses the lines the schema refuses, and accepts plain results without it', () => {
    const refused = Object.entries(lines).filter(([, line]) => bySchema(line) === 'refused');
    expect(refused.map(([name]) => name)).toEqual([
      'a request with a bad progress token',
      'a request with array params',
      'a request with null params',
      'a request with a numeric method',
      'a request with a null id',
      'a request with a fractional id',
      'a request with an extra key',
      'a request and a result at once',
      'an extra top-level key',
      'a fractional id',
      'an unsafe integer id',
      'a null id',
      'an array result',
      'a null result',
      'another version',
      'no version',
      'an array',
      'a string',
    ]);
  });
});
