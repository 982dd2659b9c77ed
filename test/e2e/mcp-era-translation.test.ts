import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

/** The conformance fixture (a 2025-era server on the v1 SDK, over stdio) served flat. */
const CONFIG = path.join(ROOT, 'test/fixtures/conformance/gateway.yaml');
const METATOOLS_CONFIG = path.join(ROOT, 'test/fixtures/conformance/gateway-metatools.yaml');
const MODERN = '2026-07-28';

interface Asked {
  message: string;
}

/** A 2026-07-28 client (v2 SDK) that answers elicitations itself, recording what it was asked. */
async function modernClient(
  url: string,
  asked: Asked[],
  capabilities = { elicitation: {} },
): Promise<Client> {
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push({ message: String((request.params as { message?: unknown }).message) });
    return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Polls `/readyz` until the gateway is ready (its servers connected); returns the body. */
async function whenReady(baseUrl: string): Promise<Record<string, any>> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${baseUrl}/readyz`);
    if (response.status === 200) return (await response.json()) as Record<string, any>;
    if (attempt > 200) throw new Error(`not ready: ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

/** A raw 2026-07-28 tools/call, for what a client library never sends (a tampered state). */
async function rawCall(url: string, id: number, name: string, extra: Record<string, unknown> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name,
        arguments: {},
        ...extra,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
        },
      },
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('a 2025-era server asking a 2026-07-28 client (input rounds)', () => {
  let gateway: RunningGateway;
  let url: string;

  beforeAll(async () => {
    gateway = await startHttpGateway(['--config', CONFIG]);
    url = `${gateway.url}/mcp`;
    await whenReady(gateway.url);
  });

  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
  });

  it('relays elicitation/create as input_required and resumes the call with the answer (flat exposure)', async () => {
    const asked: Asked[] = [];
    const client = await modernClient(url, asked);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
      const result = await client.callTool({
        name: 'test_elicitation',
        arguments: { message: 'Who are you?' },
      });
      expect(asked).toEqual([{ message: 'Who are you?' }]);
      expect(text(result)).toBe(
        'User response: action=accept, content={"username":"ada","email":"ada@example.com"}',
      );
    } finally {
      await client.close();
    }
  });

  it('carries the round through run_tool too (metatools exposure)', async () => {
    await using metatools = await startHttpGateway(['--config', METATOOLS_CONFIG]);
    await whenReady(metatools.url);
    const asked: Asked[] = [];
    const client = await modernClient(`${metatools.url}/mcp`, asked);
    try {
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'conformance:test_elicitation', args: { message: 'Via run_tool?' } },
      });
      expect(asked).toEqual([{ message: 'Via run_tool?' }]);
      expect(JSON.stringify(result)).toContain('action=accept');
    } finally {
      await client.close();
    }
  });

  it('carries the round through run_chain and execute_code (metatools exposure)', async () => {
    await using metatools = await startHttpGateway(['--config', METATOOLS_CONFIG]);
    await whenReady(metatools.url);
    const asked: Asked[] = [];
    const client = await modernClient(`${metatools.url}/mcp`, asked);
    try {
      const chained = await client.callTool({
        name: 'run_chain',
        arguments: {
          steps: [{ tool_id: 'conformance:test_elicitation', args: { message: 'Via run_chain?' } }],
        },
      });
      expect(JSON.stringify(chained)).toContain('action=accept');
      const program = await client.callTool({
        name: 'execute_code',
        arguments: {
          code: "const r = await tools.call('conformance:test_elicitation', { message: 'Via code?' }); return r;",
        },
      });
      expect(JSON.stringify(program)).toContain('action=accept');
      expect(asked).toEqual([{ message: 'Via run_chain?' }, { message: 'Via code?' }]);
    } finally {
      await client.close();
    }
  });

  it('answers the first round with a signed request state, and refuses a tampered one (-32602)', async () => {
    const first = await rawCall(url, 1, 'test_streaming_elicitation');
    expect(first.body.result.resultType).toBe('input_required');
    const [key] = Object.keys(first.body.result.inputRequests);
    expect(first.body.result.inputRequests[key as string].method).toBe('elicitation/create');
    const state = first.body.result.requestState as string;
    const [version, payload, mac] = state.split('.');
    const forged = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload as string, 'base64url').toString()),
        exp: 9_999_999_999,
      }),
    ).toString('base64url');
    const tampered = await rawCall(url, 2, 'test_streaming_elicitation', {
      requestState: `${version}.${forged}.${mac}`,
      inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
    });
    expect(tampered.body.error.code).toBe(-32602);
    // The genuine state still resumes the call.
    const resumed = await rawCall(url, 3, 'test_streaming_elicitation', {
      requestState: state,
      inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
    });
    expect(text(resumed.body.result)).toBe('elicited: accept');
  });

  it('fails a call whose server asks for a capability the client did not declare with -32021', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/call',
        'mcp-name': 'test_missing_capability',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: {
          name: 'test_missing_capability',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { id: number; error: { code: number; data: unknown } };
    expect(body.id).toBe(9);
    expect(body.error.code).toBe(-32021);
    expect(body.error.data).toMatchObject({ requiredCapabilities: { sampling: {} } });
  });
});
