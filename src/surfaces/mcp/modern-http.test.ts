import { Server, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { describe, expect, it, vi } from 'vitest';
import { mcpPost } from '../../../test/support/mcp-post.js';
import type { ToolScope } from '../../composition/tool-scope.js';
import { silentLogger } from '../../foundation/ports/logger.js';
import { ModernHttpEndpoint } from './modern-http.js';
import type { SessionContext } from './session-factory.js';

const MODERN = '2026-07-28';
const CONTEXT: SessionContext = { caller: { identity: 'anonymous' }, scope: {} as ToolScope };

/** An endpoint whose session servers list one tool; counts the servers made and disposed. */
function endpoint() {
  const made = vi.fn();
  const disposed = vi.fn();
  const modern = new ModernHttpEndpoint({
    createSession: () => {
      made();
      const server = new Server(
        { name: 'test', version: '1.0.0' },
        { capabilities: { tools: {} }, supportedProtocolVersions: [MODERN, ...SUPPORTED_PROTOCOL_VERSIONS] },
      );
      server.setRequestHandler('tools/list', () => ({
        tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }],
      }));
      return { server, dispose: disposed };
    },
    maxBodyBytes: 1_000_000,
    log: silentLogger,
  });
  return { modern, made, disposed };
}

function request(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request('http://localhost/mcp', mcpPost(body, headers));
}

const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const listTools = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope } };
const modernHeaders = { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' };
const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};

describe('ModernHttpEndpoint.serve', () => {
  it('answers a 2026-07-28 request from a server of its own, disposed after the answer', async () => {
    const { modern, made, disposed } = endpoint();
    const answer = await modern.serve(request(listTools, modernHeaders), listTools, CONTEXT);
    expect(answer?.status).toBe(200);
    const body = (await answer?.json()) as { result: { tools: { name: string }[] } };
    expect(body.result.tools.map((t) => t.name)).toEqual(['echo']);
    expect(made).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(disposed).toHaveBeenCalledTimes(1));
  });

  it('hands a 2025 request back to the sessions, as the SDK classifies it, without making a server', async () => {
    const { modern, made } = endpoint();
    expect(await modern.serve(request(initialize), initialize, CONTEXT)).toBeUndefined();
    const batch = [initialize, { jsonrpc: '2.0', method: 'notifications/initialized' }];
    expect(await modern.serve(request(batch), batch, CONTEXT)).toBeUndefined();
    const plain = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect(await modern.serve(request(plain), plain, CONTEXT)).toBeUndefined();
    expect(made).not.toHaveBeenCalled();
  });

  it('leaves a 2025 request with a non-JSON content type to the sessions (their transport answers it)', async () => {
    const { modern } = endpoint();
    const answer = await modern.serve(
      request(initialize, { 'content-type': 'text/plain' }),
      initialize,
      CONTEXT,
    );
    expect(answer).toBeUndefined();
  });

  it("answers the modern path's own refusals: a non-JSON content type, a modern header without the envelope", async () => {
    const { modern, made } = endpoint();
    const unsupported = await modern.serve(
      request(listTools, { ...modernHeaders, 'content-type': 'text/plain' }),
      listTools,
      CONTEXT,
    );
    expect(unsupported?.status).toBe(415);
    const bare = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
    const refused = await modern.serve(request(bare, modernHeaders), bare, CONTEXT);
    expect(refused?.status).toBe(400);
    const refusal = (await refused?.json()) as { error: { code: number } } | undefined;
    expect(refusal?.error.code).toBe(-32602);
    expect(made).not.toHaveBeenCalled();
  });
});
