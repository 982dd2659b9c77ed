import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type ClientCapabilities,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerBin } from '../support/fixture-servers.js';
import { type DisposableClient, type RunningGateway, startHttpGateway } from './gateway-process.js';

/**
 * Flat exposure of two downstream servers that expose the same resource URIs (two instances of
 * server-everything under the keys `alpha` and `beta`): the resources of each are told apart by
 * their namespace, and reads, templates, subscriptions and completions reach the server that
 * listed them.
 */

const EVERYTHING = referenceServerBin('server-everything');

async function connect(
  url: string,
  capabilities: ClientCapabilities = {},
  setup: (client: Client) => void = () => {},
): Promise<DisposableClient> {
  const client = new Client({ name: 'flat-resources', version: '1.0.0' }, { capabilities });
  setup(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return Object.assign(client, {
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  });
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('flat resources of two servers exposing the same URIs', () => {
  let dir: string;
  let gateway: RunningGateway;
  let client: DisposableClient;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-flat-resources-'));
    const q = (value: string) => JSON.stringify(value);
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'tools: { builtin: false }',
        'servers:',
        `  alpha: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio] }`,
        `  beta: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio] }`,
        'exposure: flat',
        'observability: { logLevel: warn }',
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config]);
    const deadline = Date.now() + 30_000;
    while ((await fetch(`${gateway.url}/readyz`)).status !== 200) {
      if (Date.now() > deadline) throw new Error('gateway not ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    client = await connect(gateway.url);
  }, 60_000);

  afterAll(async () => {
    await client?.[Symbol.asyncDispose]();
    await gateway?.[Symbol.asyncDispose]();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists each server’s resources once, under its namespace, and reads each from its server', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(new Set(uris).size).toBe(uris.length);
    const alpha = resources.filter((r) => r.uri.startsWith('aperture://alpha/'));
    const beta = resources.filter((r) => r.uri.startsWith('aperture://beta/'));
    expect(alpha.length).toBeGreaterThan(0);
    expect(alpha.length + beta.length).toBe(resources.length);
    // The same downstream resources on both sides, told apart by the namespace in URI and name.
    expect(alpha.map((r) => r.uri.slice('aperture://alpha/'.length)).sort()).toEqual(
      beta.map((r) => r.uri.slice('aperture://beta/'.length)).sort(),
    );
    expect(alpha.every((r) => r.name.startsWith('alpha__'))).toBe(true);
    const original = alpha[0]!.uri.slice('aperture://alpha/'.length);
    expect(original).toMatch(/^demo:\/\//);

    for (const uri of [alpha[0]!.uri, `aperture://beta/${original}`]) {
      const read = await client.readResource({ uri });
      expect(read.contents[0]?.uri).toBe(uri);
    }
    // A server's own URI still reads (from the first server that lists it).
    const plain = await client.readResource({ uri: original });
    expect(plain.contents[0]?.uri).toBe(original);
    await expect(client.readResource({ uri: `aperture://gamma/${original}` })).rejects.toThrow(
      /^MCP error -32602: Resource not found: aperture:\/\/gamma\//,
    );
  });

  it('passes a downstream JSON-RPC error on with one "MCP error" prefix, not two', async () => {
    const failure = await client.readResource({ uri: 'aperture://alpha/demo://resource/no-such-thing' }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure?.message).toMatch(/^MCP error -?\d+: /);
    expect(failure?.message).not.toMatch(/MCP error -?\d+: MCP error/);
    const tool = await client.callTool({ name: 'alpha__no-such-tool', arguments: {} }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(tool?.message).toBe('MCP error -32602: Unknown tool: alpha__no-such-tool');
  });

  it('names the resources a tool result links or embeds as they are listed', async () => {
    const result = await client.callTool({ name: 'beta__get-resource-links', arguments: { count: 2 } });
    const links = (result.content as { type: string; uri?: string }[]).filter(
      (c) => c.type === 'resource_link',
    );
    expect(links.length).toBe(2);
    for (const link of links) {
      expect(link.uri).toMatch(/^aperture:\/\/beta\/demo:\/\//);
      expect((await client.readResource({ uri: link.uri! })).contents[0]?.uri).toBe(link.uri);
    }
    const embedded = await client.callTool({
      name: 'alpha__get-resource-reference',
      arguments: { resourceType: 'Text', resourceId: 1 },
    });
    const resource = (embedded.content as { type: string; resource?: { uri: string } }[]).find(
      (c) => c.type === 'resource',
    );
    expect(resource?.resource?.uri).toMatch(/^aperture:\/\/alpha\/demo:\/\//);
  });

  it('namespaces templates and routes a templated read and its completions back', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    const templates = resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain('aperture://alpha/demo://resource/dynamic/text/{resourceId}');
    expect(templates).toContain('aperture://beta/demo://resource/dynamic/text/{resourceId}');
    expect(new Set(templates).size).toBe(templates.length);
    const uri = 'aperture://beta/demo://resource/dynamic/text/7';
    const read = await client.readResource({ uri });
    expect(read.contents[0]?.uri).toBe(uri);
    expect(JSON.stringify(read.contents[0])).toMatch(/7/);
    const completion = await client.complete({
      ref: { type: 'ref/resource', uri: 'aperture://beta/demo://resource/dynamic/text/{resourceId}' },
      argument: { name: 'resourceId', value: '1' },
    });
    expect(completion.completion.values.length).toBeGreaterThan(0);
  });

  // A client that can sample gets a downstream link of its own; one that cannot shares the
  // gateway's connection. Updates come back through either way.
  for (const [kind, capabilities] of [
    ['shared connection', {}],
    ['session link', { sampling: {} }],
  ] as const) {
    it(`routes subscriptions to the right server and names updates as listed (${kind})`, async () => {
      const updated: string[] = [];
      await using subscriber = await connect(gateway.url, capabilities, (c) =>
        c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri)),
      );
      const { resources } = await subscriber.listResources();
      const onAlpha = resources.find((r) => r.uri.startsWith('aperture://alpha/'))!.uri;
      const onBeta = `aperture://beta/${onAlpha.slice('aperture://alpha/'.length)}`;
      await subscriber.subscribeResource({ uri: onAlpha });
      await subscriber.subscribeResource({ uri: onBeta });
      // Only beta sends updates: only beta's URI may be reported updated.
      const toggled = await subscriber.callTool({ name: 'beta__toggle-subscriber-updates', arguments: {} });
      expect(toggled.isError).toBeFalsy();
      try {
        await until(() => updated.includes(onBeta), 8000, `an update of ${onBeta}`);
        expect(updated).not.toContain(onAlpha);
        expect(updated.every((uri) => uri.startsWith('aperture://beta/'))).toBe(true);
      } finally {
        await subscriber.callTool({ name: 'beta__toggle-subscriber-updates', arguments: {} });
        await subscriber.unsubscribeResource({ uri: onAlpha });
        await subscriber.unsubscribeResource({ uri: onBeta });
      }
    });
  }
});
