import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Task } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPart, sendRequest } from '../support/a2a-messages.js';
import { type RunningGateway, startHttpGateway } from './gateway-process.js';

const ALICE = 'alice-a2a-key-0123456789abcdef';
const BOB = 'bob-a2a-key-0123456789abcdef01';

/** A tool slow enough that a push config can be set while its task runs. */
const TOOLS = `
export const slow = {
  namespace: 'work', name: 'slow', description: 'Waits, then answers',
  inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  handler: async (args) => { await new Promise((r) => setTimeout(r, args.ms ?? 1500)); return { done: true }; },
};
export const quick = {
  namespace: 'other', name: 'quick', description: 'Answers at once', inputSchema: { type: 'object' },
  handler: () => ({ ok: true }),
};
`;

interface Delivery {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

/** A webhook on 127.0.0.1 recording what it receives. */
async function startWebhook(): Promise<{ url: string; deliveries: Delivery[]; server: Server }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => {
      text += chunk;
    });
    req.on('end', () => {
      deliveries.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, deliveries, server };
}

async function gatewayWith(push: string): Promise<RunningGateway> {
  const dir = await mkdtemp(path.join(tmpdir(), 'aperture-a2a-push-'));
  await writeFile(path.join(dir, 'tools.mjs'), TOOLS);
  await writeFile(
    path.join(dir, 'aperture.yaml'),
    [
      'server: { name: aperture-a2a-push }',
      'observability: { logLevel: warn }',
      'tools: { builtin: false, modules: ["./tools.mjs"] }',
      'toolsets:',
      '  - { name: work, namespaces: [work] }',
      'auth:',
      '  apiKeys:',
      `    - { name: alice, key: "${ALICE}" }`,
      `    - { name: bob, key: "${BOB}", toolsets: [work] }`,
      'a2a:',
      '  card:',
      '    provider: { organization: Example Corp, url: "https://example.com" }',
      '    documentationUrl: https://example.com/docs',
      '    iconUrl: https://example.com/icon.png',
      `  push: ${push}`,
      '',
    ].join('\n'),
  );
  return startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
}

async function clientOf(gateway: RunningGateway, key: string): Promise<Client> {
  const withKey: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('x-api-key', key);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })],
    }),
  );
  return factory.createFromUrl(gateway.url);
}

async function startLongTask(client: Client): Promise<Task> {
  const result = await client.sendMessage(
    sendRequest([dataPart({ tool_id: 'work:slow', args: { ms: 1500 } })], true),
  );
  if ('messageId' in result) throw new Error('expected a task');
  return result as Task;
}

describe('A2A push notifications and cards of `aperture serve`', () => {
  let open: RunningGateway;
  let guarded: RunningGateway;
  let webhook: Awaited<ReturnType<typeof startWebhook>>;

  beforeAll(async () => {
    webhook = await startWebhook();
    [open, guarded] = await Promise.all([
      gatewayWith('{ allowPrivateNetwork: true, backoffMs: 50 }'),
      gatewayWith('{}'),
    ]);
  });

  afterAll(async () => {
    await open?.[Symbol.asyncDispose]();
    await guarded?.[Symbol.asyncDispose]();
    webhook?.server.closeAllConnections();
    await new Promise((resolve) => webhook?.server.close(resolve));
  });

  it('delivers a long task updates to a loopback webhook with the token, when private networks are allowed', async () => {
    const client = await clientOf(open, ALICE);
    const task = await startLongTask(client);
    const config = await client.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: task.id,
      url: webhook.url,
      token: 'client-token-123',
      authentication: undefined,
    });
    expect(config.url).toBe(webhook.url);
    const listed = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(listed.configs.map((c) => c.url)).toEqual([webhook.url]);
    const got = await client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id });
    expect(got.token).toBe('client-token-123');

    // Wait for the task's final update to arrive at the webhook.
    const deadline = Date.now() + 15_000;
    const final = () =>
      webhook.deliveries.find((d) => JSON.stringify(d.body).includes('TASK_STATE_COMPLETED'));
    while (!final() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(final(), JSON.stringify(webhook.deliveries.map((d) => d.body))).toBeDefined();
    for (const delivery of webhook.deliveries) {
      expect(delivery.headers['x-a2a-notification-token']).toBe('client-token-123');
      expect(delivery.headers['content-type']).toMatch(/application\/a2a\+json/);
      expect(JSON.stringify(delivery.body)).toContain(task.id);
    }

    // The HTTP+JSON binding serves the same configs.
    const rest = await fetch(`${open.url}/a2a/tasks/${task.id}/pushNotificationConfigs`, {
      headers: { 'x-api-key': ALICE, 'a2a-version': '1.0' },
    });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { configs: { id: string }[] }).configs.map((c) => c.id)).toEqual([
      config.id,
    ]);

    // Another caller cannot read the first one's push configs.
    const bob = await clientOf(open, BOB);
    await expect(
      bob.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id }),
    ).rejects.toThrow();
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id });
    await expect(
      client.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id }),
    ).rejects.toThrow();
  });

  it('refuses a webhook on a private address by default', async () => {
    const client = await clientOf(guarded, ALICE);
    const task = await startLongTask(client);
    await expect(
      client.createTaskPushNotificationConfig({
        tenant: '',
        id: '',
        taskId: task.id,
        url: webhook.url,
        token: 't',
        authentication: undefined,
      }),
    ).rejects.toThrow(/refused|not allowed|private|forbidden/i);
    expect(
      (
        await client.listTaskPushNotificationConfig({
          tenant: '',
          taskId: task.id,
          pageSize: 0,
          pageToken: '',
        })
      ).configs,
    ).toEqual([]);
  });

  it('advertises push and the card fields, and serves an extended card that differs by caller', async () => {
    const card = (await (
      await fetch(`${guarded.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })
    ).json()) as Record<string, any>;
    expect(card.capabilities).toMatchObject({ pushNotifications: true, extendedAgentCard: true });
    expect(card.provider).toEqual({ organization: 'Example Corp', url: 'https://example.com' });
    expect(card.documentationUrl).toBe('https://example.com/docs');
    expect(card.iconUrl).toBe('https://example.com/icon.png');
    const legacy = (await (await fetch(`${guarded.url}/.well-known/agent-card.json`)).json()) as Record<
      string,
      any
    >;
    expect(legacy).toMatchObject({
      supportsAuthenticatedExtendedCard: true,
      capabilities: { pushNotifications: true },
    });

    const alice = await (await clientOf(guarded, ALICE)).getAgentCard();
    const bob = await (await clientOf(guarded, BOB)).getAgentCard();
    expect(alice.skills.map((s) => s.id).sort()).toEqual(['other:quick', 'work:slow']);
    expect(bob.skills.map((s) => s.id)).toEqual(['work:slow']);
    // The public card, without credentials, lists none.
    expect(legacy.skills).toEqual([]);
  });
});
