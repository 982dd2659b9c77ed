import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerBin } from '../support/fixture-servers.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

/**
 * Downstream prompts and resources in the exposure modes that list metatools (`metatools`, and
 * `auto` deciding for a small catalog): two server-everything instances (`alpha`, `beta`) behind
 * `aperture serve`, reached by the official SDK client of both eras. An unconfined key sees both
 * servers' prompts and resources, namespaced as in flat exposure; a key confined to a toolset of
 * alpha's tools sees alpha's only and is refused beta's. Reads and gets pass the policies and the
 * rate limits of tool calls and are in the activity feed.
 */

const EVERYTHING = referenceServerBin('server-everything');

const ADMIN = 'admin-key-0123456789abcdef0123456789';
const CONFINED = 'confined-key-0123456789abcdef012345';
const READER = 'reader-key-0123456789abcdef01234567';

type Era = 'auto' | 'legacy';

async function connect(url: string, key: string, era: Era = 'legacy'): Promise<Client & AsyncDisposable> {
  const client = new Client(
    { name: `passthrough-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return Object.assign(client, {
    async [Symbol.asyncDispose]() {
      await client.close().catch(() => {});
    },
  });
}

/** The message of a rejected promise (the test fails if it resolves). */
async function failure(promise: Promise<unknown>): Promise<Error & { code?: number; data?: unknown }> {
  const outcome = await promise.then(
    () => undefined,
    (error: Error) => error,
  );
  if (!outcome) throw new Error('expected a failure');
  return outcome as Error & { code?: number; data?: unknown };
}

for (const mode of ['metatools', 'auto'] as const) {
  describe(`downstream prompts and resources in ${mode} exposure`, () => {
    let dir: string;
    let gateway: RunningGateway;

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), `aperture-passthrough-${mode}-`));
      const q = (value: string) => JSON.stringify(value);
      const config = path.join(dir, 'aperture.yaml');
      await writeFile(
        config,
        [
          'tools: { builtin: false }',
          'servers:',
          `  alpha: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio] }`,
          `  beta: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio] }`,
          `exposure: ${mode}`,
          'observability: { logLevel: warn }',
          'toolsets:',
          '  - { name: alpha-only, namespaces: [alpha] }',
          'auth:',
          '  apiKeys:',
          `    - { name: admin, key: "${ADMIN}", admin: true }`,
          `    - { name: confined, key: "${CONFINED}", toolsets: [alpha-only] }`,
          `    - { name: reader, key: "${READER}" }`,
          'policies:',
          '  rules:',
          '    - name: no-args-prompt',
          '      effect: deny',
          '      tools: ["alpha:prompts/get"]',
          '      when: args.name == "alpha__args-prompt"',
          '      reason: not this one',
          `rateLimits: [{ identity: reader, tool: "beta:resources/read", perMinute: 2 }]`,
          '',
        ].join('\n'),
      );
      gateway = await startHttpGateway(['--config', config]);
      const deadline = Date.now() + 30_000;
      while ((await fetch(`${gateway.url}/readyz`)).status !== 200) {
        if (Date.now() > deadline) throw new Error(`gateway not ready:\n${gateway.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }, 60_000);

    afterAll(async () => {
      await gateway?.[Symbol.asyncDispose]();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    for (const era of ['legacy', 'auto'] as const) {
      it(`lists, reads and gets both servers' prompts and resources, namespaced (${era === 'auto' ? '2026-07-28' : '2025-11-25'} client)`, async () => {
        await using client = await connect(gateway.url, ADMIN, era);
        // The model still sees the metatools, not the downstream tools.
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('search_tools');
        expect(tools.some((t) => t.name.startsWith('alpha__'))).toBe(false);
        expect(client.getServerCapabilities()?.prompts).toBeDefined();
        expect(client.getServerCapabilities()?.resources).toBeDefined();

        const { prompts } = await client.listPrompts();
        const names = prompts.map((p) => p.name);
        expect(names).toContain('alpha__simple-prompt');
        expect(names).toContain('beta__simple-prompt');
        expect(names.every((n) => n.startsWith('alpha__') || n.startsWith('beta__'))).toBe(true);

        const got = await client.getPrompt({ name: 'beta__args-prompt', arguments: { city: 'Lyon' } });
        expect(JSON.stringify(got.messages)).toContain('Lyon');

        const { resources } = await client.listResources();
        const alpha = resources.filter((r) => r.uri.startsWith('aperture://alpha/'));
        const beta = resources.filter((r) => r.uri.startsWith('aperture://beta/'));
        expect(alpha.length).toBeGreaterThan(0);
        expect(beta.length).toBe(alpha.length);
        expect(alpha.length + beta.length).toBe(resources.length);
        const read = await client.readResource({ uri: alpha[0]!.uri });
        expect(read.contents[0]?.uri).toBe(alpha[0]!.uri);

        const { resourceTemplates } = await client.listResourceTemplates();
        expect(resourceTemplates.map((t) => t.uriTemplate)).toContain(
          'aperture://beta/demo://resource/dynamic/text/{resourceId}',
        );
        const templated = await client.readResource({
          uri: 'aperture://beta/demo://resource/dynamic/text/3',
        });
        expect(JSON.stringify(templated.contents[0])).toMatch(/3/);
      });
    }

    it('names the resources a run_tool result links as resources/list names them', async () => {
      await using client = await connect(gateway.url, ADMIN);
      const result = await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'beta:get-resource-links', args: { count: 2 } },
      });
      const links = (result.content as { type: string; uri?: string }[]).filter(
        (c) => c.type === 'resource_link',
      );
      expect(links).toHaveLength(2);
      for (const link of links) {
        expect(link.uri).toMatch(/^aperture:\/\/beta\/demo:\/\//);
        expect((await client.readResource({ uri: link.uri! })).contents[0]?.uri).toBe(link.uri);
      }
    });

    it('answers a 2026-07-28 client’s merged lists with the caching hint of their sources', async () => {
      await using client = await connect(gateway.url, ADMIN, 'auto');
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      // server-everything speaks 2025 and promises nothing: the merged lists may not be kept, and
      // an authenticated caller's lists are its own.
      const listed = (await client.listPrompts()) as { ttlMs?: number; cacheScope?: string };
      expect(listed.ttlMs).toBe(0);
      expect(listed.cacheScope).toBe('private');
    });

    it('answers unknown prompts and resources with -32602', async () => {
      await using client = await connect(gateway.url, ADMIN);
      const prompt = await failure(client.getPrompt({ name: 'alpha__no-such-prompt' }));
      expect(prompt.message).toMatch(/Prompt not found: alpha__no-such-prompt/);
      expect(prompt.code).toBe(-32602);
      const resource = await failure(client.readResource({ uri: 'aperture://gamma/demo://resource/x' }));
      expect(resource.message).toMatch(/Resource not found: aperture:\/\/gamma\//);
      expect(resource.code).toBe(-32602);
      // A URI alpha does not know: alpha's own error (naming its own URI), passed on.
      const downstream = await failure(
        client.readResource({ uri: 'aperture://alpha/demo://resource/no-such' }),
      );
      expect(downstream.message).toBe('Resource demo://resource/no-such not found');
    });

    it('confines a key to the prompts and resources of its toolsets’ servers and refuses the others', async () => {
      await using client = await connect(gateway.url, CONFINED);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('search_tools');

      const { prompts } = await client.listPrompts();
      expect(prompts.length).toBeGreaterThan(0);
      expect(prompts.every((p) => p.name.startsWith('alpha__'))).toBe(true);
      const { resources } = await client.listResources();
      expect(resources.length).toBeGreaterThan(0);
      expect(resources.every((r) => r.uri.startsWith('aperture://alpha/'))).toBe(true);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.every((t) => t.uriTemplate.startsWith('aperture://alpha/'))).toBe(true);

      // Its own server's: read and got.
      const read = await client.readResource({ uri: resources[0]!.uri });
      expect(read.contents[0]?.uri).toBe(resources[0]!.uri);
      const got = await client.getPrompt({ name: 'alpha__simple-prompt' });
      expect(got.messages.length).toBeGreaterThan(0);

      // The other server's: refused, with the stable code.
      const betaUri = `aperture://beta/${resources[0]!.uri.slice('aperture://alpha/'.length)}`;
      for (const refused of [
        failure(client.readResource({ uri: betaUri })),
        failure(client.getPrompt({ name: 'beta__simple-prompt' })),
        failure(client.subscribeResource({ uri: betaUri })),
      ]) {
        const error = await refused;
        expect(error.message).toMatch(/outside the toolsets of this caller/);
        expect(error.data).toMatchObject({ code: 'forbidden' });
      }
    });

    it('lists the prompts, resources and templates each key is served in the manifest', async () => {
      type Manifest = {
        tools: unknown[];
        prompts?: { name: string }[];
        resources?: { uri: string }[];
        resourceTemplates?: { uriTemplate: string }[];
      };
      const manifest = async (key: string) =>
        (await (
          await fetch(`${gateway.url}/.well-known/mcp/manifest.json`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).json()) as Manifest;
      const all = await manifest(ADMIN);
      await using client = await connect(gateway.url, ADMIN);
      // Exactly what a session lists.
      expect(all.prompts?.map((p) => p.name).sort()).toEqual(
        (await client.listPrompts()).prompts.map((p) => p.name).sort(),
      );
      expect(all.resources?.map((r) => r.uri).sort()).toEqual(
        (await client.listResources()).resources.map((r) => r.uri).sort(),
      );
      expect(all.resourceTemplates?.map((t) => t.uriTemplate)).toContain(
        'aperture://beta/demo://resource/dynamic/text/{resourceId}',
      );
      const confined = await manifest(CONFINED);
      expect(confined.prompts?.length).toBeGreaterThan(0);
      expect(confined.prompts?.every((p) => p.name.startsWith('alpha__'))).toBe(true);
      expect(confined.resources?.every((r) => r.uri.startsWith('aperture://alpha/'))).toBe(true);
      expect(confined.resourceTemplates?.every((t) => t.uriTemplate.startsWith('aperture://alpha/'))).toBe(
        true,
      );
    });

    it('passes reads and gets through the policies and rate limits of tool calls, and shows them in the activity feed', async () => {
      await using admin = await connect(gateway.url, ADMIN);
      const denied = await failure(
        admin.getPrompt({ name: 'alpha__args-prompt', arguments: { city: 'Oslo' } }),
      );
      expect(denied.message).toMatch(/Denied by policy "no-args-prompt": not this one/);
      expect(denied.data).toMatchObject({ code: 'forbidden' });
      // The rule names one prompt: the others are got.
      expect(
        (await admin.getPrompt({ name: 'beta__args-prompt', arguments: { city: 'Oslo' } })).messages,
      ).toHaveLength(1);

      await using reader = await connect(gateway.url, READER);
      const uri = 'aperture://beta/demo://resource/dynamic/text/1';
      await reader.readResource({ uri });
      await reader.readResource({ uri });
      const limited = await failure(reader.readResource({ uri }));
      expect(limited.data).toMatchObject({ code: 'rate_limited' });
      // The limit is beta's reads: alpha's still go.
      await reader.readResource({ uri: 'aperture://alpha/demo://resource/dynamic/text/1' });

      const stats = (await (
        await fetch(`${gateway.url}/api/admin/activity/stats`, {
          headers: { authorization: `Bearer ${ADMIN}` },
        })
      ).json()) as { tools: { tool: string; calls: number; errors: number }[] };
      const of = (tool: string) => stats.tools.find((t) => t.tool === tool);
      expect(of('beta:resources/read')?.calls).toBeGreaterThanOrEqual(3);
      expect(of('beta:resources/read')?.errors).toBeGreaterThanOrEqual(1);
      expect(of('beta:prompts/get')?.calls).toBeGreaterThanOrEqual(1);
    });
  });
}
