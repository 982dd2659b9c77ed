import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, unlessChromium } from '../support/chromium.js';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

/**
 * A real MCP App server from npm (`@modelcontextprotocol/server-system-monitor`: `get-system-info`
 * has `_meta.ui.resourceUri: ui://system-monitor/mcp-app.html`, `poll-system-stats` is app-only,
 * `visibility: ["app"]`) beside server-everything, so names are namespaced, behind the built CLI,
 * seen through the official SDK client: the app's `ui://` resource is renamed alike in the tool's
 * `_meta` and in `resources/list`, reads of it reach the server, and the app-only tool is hidden
 * from what the model is shown while staying callable by name.
 */

const MONITOR = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-system-monitor/dist/index.js');
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const APP_URI = 'ui://monitor/system-monitor/mcp-app.html';

async function gatewayWith(dir: string, exposure: string): Promise<RunningGateway> {
  const q = (value: string) => JSON.stringify(value);
  const config = path.join(dir, `aperture-${exposure}.yaml`);
  await writeFile(
    config,
    [
      'tools: { builtin: false }',
      'servers:',
      `  monitor: { command: ${q(process.execPath)}, args: [${q(MONITOR)}, --stdio] }`,
      `  everything: { command: ${q(process.execPath)}, args: [${q(EVERYTHING)}, stdio] }`,
      `exposure: ${exposure}`,
      'observability: { logLevel: warn }',
      '',
    ].join('\n'),
  );
  const gateway = await startHttpGateway(['--config', config]);
  const deadline = Date.now() + 30_000;
  while ((await fetch(`${gateway.url}/readyz`)).status !== 200) {
    if (Date.now() > deadline) throw new Error('gateway not ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return gateway;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'mcp-apps-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return client;
}

function structured(result: unknown): Record<string, unknown> {
  return (result as { structuredContent: Record<string, unknown> }).structuredContent;
}

describe('an MCP App server behind a namespaced gateway', () => {
  let dir: string;
  let flat: RunningGateway;
  let metatools: RunningGateway;
  let flatClient: Client;
  let metaClient: Client;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-mcp-apps-'));
    [flat, metatools] = await Promise.all([gatewayWith(dir, 'flat'), gatewayWith(dir, 'metatools')]);
    [flatClient, metaClient] = await Promise.all([connect(flat.url), connect(metatools.url)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.allSettled([flatClient?.close(), metaClient?.close()]);
    await Promise.allSettled([flat?.[Symbol.asyncDispose](), metatools?.[Symbol.asyncDispose]()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('flat tools/list: the app tool with its ui:// resource renamed in both keys, no app-only tool', async () => {
    const { tools } = await flatClient.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('everything__echo');
    const app = tools.find((t) => t.name === 'monitor__get-system-info');
    expect(app?._meta).toMatchObject({ ui: { resourceUri: APP_URI }, 'ui/resourceUri': APP_URI });
    expect(names).not.toContain('monitor__poll-system-stats');
  });

  it('resources/list names the app as the tool does, and reading it returns the server’s HTML app', async () => {
    const { resources } = await flatClient.listResources();
    const listed = resources.find((r) => r.uri === APP_URI);
    expect(listed?.mimeType).toBe(RESOURCE_MIME_TYPE);
    // Other resources keep the aperture:// form.
    expect(resources.some((r) => r.uri.startsWith('aperture://everything/'))).toBe(true);
    const read = await flatClient.readResource({ uri: APP_URI });
    const [content] = read.contents;
    expect(content?.mimeType).toBe(RESOURCE_MIME_TYPE);
    expect(content && 'text' in content ? content.text : '').toMatch(/<html/i);
  });

  it('a ui:// URI of no server is the stable not-found error', async () => {
    await expect(flatClient.readResource({ uri: 'ui://nobody/mcp-app.html' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Resource not found'),
    });
  });

  it('calls the app tool, and the app-only tool by its flat name', async () => {
    const info = await flatClient.callTool({ name: 'monitor__get-system-info', arguments: {} });
    expect(info.isError).not.toBe(true);
    expect(structured(info)).toHaveProperty('hostname');
    const stats = await flatClient.callTool({ name: 'monitor__poll-system-stats', arguments: {} });
    expect(stats.isError).not.toBe(true);
    expect(structured(stats)).toHaveProperty('memory');
  });

  it('search_tools and list_tools leave the app-only tool out; describe_tool shows the app', async () => {
    const search = structured(
      await metaClient.callTool({
        name: 'search_tools',
        arguments: { query: 'poll system stats cpu memory' },
      }),
    ) as { tools: { id: string }[] };
    const ids = search.tools.map((t) => t.id);
    expect(ids).toContain('monitor:get-system-info');
    expect(ids).not.toContain('monitor:poll-system-stats');
    const list = structured(
      await metaClient.callTool({ name: 'list_tools', arguments: { namespace: 'monitor' } }),
    ) as { tools: { id: string }[] };
    expect(list.tools.map((t) => t.id)).toEqual(['monitor:get-system-info']);
    const described = structured(
      await metaClient.callTool({ name: 'describe_tool', arguments: { tool_id: 'monitor:get-system-info' } }),
    ) as { tool: { app?: { resourceUri?: string }; _meta?: Record<string, unknown> } };
    expect(described.tool.app?.resourceUri).toBe(APP_URI);
    expect(described.tool._meta).toMatchObject({ ui: { resourceUri: APP_URI } });
    // The metatools list no tool flat; the app-only tool still answers to its flat name.
    const { tools } = await metaClient.listTools();
    expect(tools.map((t) => t.name)).not.toContain('monitor__poll-system-stats');
    const stats = await metaClient.callTool({ name: 'monitor__poll-system-stats', arguments: {} });
    expect(stats.isError).not.toBe(true);
    expect(structured(stats)).toHaveProperty('memory');
    // run_tool runs it: the app's data as the server returned it.
    const run = await metaClient.callTool({
      name: 'run_tool',
      arguments: { tool_id: 'monitor:get-system-info', args: {} },
    });
    expect(structured(run)).toHaveProperty('hostname');
  });

  it.skipIf(!CHROMIUM)(
    `the console's tool page shows the app, and app-only${unlessChromium}`,
    async () => {
      const browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
      try {
        const page = await browser.newPage();
        await page.goto(`${metatools.url}/#/tool/${encodeURIComponent('monitor:get-system-info')}`);
        await page.getByRole('heading', { name: /monitor:get-system-info/ }).waitFor();
        const app = await page.getByTestId('tool-app').textContent();
        expect(app).toContain('MCP App');
        expect(app).toContain('ui://system-monitor/mcp-app.html');
        expect(app).not.toContain('app-only');
        await page.goto(`${metatools.url}/#/tool/${encodeURIComponent('monitor:poll-system-stats')}`);
        await page.getByRole('heading', { name: /monitor:poll-system-stats/ }).waitFor();
        await expect(page.getByTestId('tool-app').textContent()).resolves.toContain('app-only');
        await page.goto(`${metatools.url}/#/tool/${encodeURIComponent('everything:echo')}`);
        await page.getByRole('heading', { name: /everything:echo/ }).waitFor();
        await expect(page.getByTestId('tool-app').count()).resolves.toBe(0);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
