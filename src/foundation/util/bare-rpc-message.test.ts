import { describe, expect, it } from 'vitest';
import { bareRpcMessage } from './bare-rpc-message.js';

describe('bareRpcMessage', () => {
  it('removes every SDK prefix at the start, and only there', () => {
    expect(bareRpcMessage('MCP error -32602: MCP error -32602: Unknown tool: x')).toBe('Unknown tool: x');
    expect(bareRpcMessage('MCP error -32000: Connection closed')).toBe('Connection closed');
    expect(bareRpcMessage('server said "MCP error 1: x"')).toBe('server said "MCP error 1: x"');
  });
});
