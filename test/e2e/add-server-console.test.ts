// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the page names ${secret:…} references on purpose.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackRegistry, startLoopbackRegistry } from '../fixtures/registry/loopback-registry.js';
import { serverDocuments } from '../fixtures/registry/server-documents.js';
import { CHROMIUM, unlessChromium } from '../support/chromium.js';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

const ADMIN_KEY = 'console-add-server-admin-0123456789';
const AGENT_KEY = 'console-add-server-agent-0123456789';
const SHOTS = path.join(ROOT, 'docs/console');
const HTTP_FIXTURE = path.join(ROOT, 'test/fixtures/mcp/http-server.mjs');

/**
 * The console's "Add server" flow (Debian's Chromium driven by playwright-core) against a loopback
 * MCP registry: search, see what a server needs (a secret named as `${secret:…}`, a value to type,
 * its transport and sandbox), add it; the config file gets the entry, the gateway reloads and the
 * Servers page shows the new server. The admin API refuses a non-admin and a secret sent as a value.
 */
describe.skipIf(!CHROMIUM)(`adding a server in the web console${unlessChromium}`, { timeout: 90_000 }, () => {
  let dir: string;
  let config: string;
  let gateway: RunningGateway;
  let registry: LoopbackRegistry;
  let remote: ChildProcess;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-add-server-console-'));
    remote = spawn(process.execPath, [HTTP_FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
    const remoteUrl = await new Promise<string>((resolve, reject) => {
      remote.stdout?.on('data', (chunk: Buffer) => {
        const match = /listening (http:\/\/\S+)/.exec(chunk.toString());
        if (match?.[1]) resolve(`${match[1]}/mcp`);
      });
      remote.once('exit', () => reject(new Error('remote fixture exited')));
    });
    registry = await startLoopbackRegistry(serverDocuments(remoteUrl));
    config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        '# team gateway: this comment stays',
        'server: { name: add-server-console }',
        'exposure: flat',
        'state: { driver: memory }',
        'observability: { logLevel: warn }',
        'registries:',
        `  - { url: ${registry.url}, name: loopback }`,
        'auth:',
        '  apiKeys:',
        `    - { name: agent, key: ${AGENT_KEY} }`,
        `    - { name: ops, key: ${ADMIN_KEY}, admin: true }`,
        'servers: {}',
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config], dir);
    browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(gateway.url);
    await page.getByLabel('API key or bearer token').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.[Symbol.asyncDispose]();
    await registry?.[Symbol.asyncDispose]();
    remote?.kill();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (route: string, key: string, body: unknown) =>
    fetch(`${gateway.url}/api/admin/registry/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });

  it('refuses a non-admin, and a secret sent as a value; nothing written', async () => {
    const before = await readFile(config, 'utf8');
    const search = await fetch(`${gateway.url}/api/admin/registry/servers?search=echo`, {
      headers: { 'x-api-key': AGENT_KEY },
    });
    expect(search.status).toBe(403);
    expect((await post('install', AGENT_KEY, { name: 'io.example/echo-remote' })).status).toBe(403);
    const secret = await post('install', ADMIN_KEY, {
      name: 'io.example/everything-with-token',
      values: { EVERYTHING_API_TOKEN: 'sk-should-never-be-written' },
    });
    expect(secret.status).toBe(400);
    expect(((await secret.json()) as { error: { message: string } }).error.message).toContain(
      'EVERYTHING_API_TOKEN is a secret: not accepted as a value here',
    );
    expect(await readFile(config, 'utf8')).toBe(before);
  });

  it('searches, shows what a server needs, adds it, and the server appears on the Servers page', async () => {
    await page.getByRole('link', { name: 'Add server' }).click();
    await page.getByRole('heading', { name: 'Add server' }).waitFor();
    // A server with a secret: the page names the reference and offers no field for it.
    await page.getByLabel('Search the registries').fill('everything');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('registry-io.example/everything-with-token').getByRole('button').click();
    const secretNeed = page.getByTestId('need-EVERYTHING_API_TOKEN');
    await expect.poll(() => secretNeed.textContent()).toContain('${secret:EVERYTHING_API_TOKEN}');
    expect(await secretNeed.locator('input').count()).toBe(0);
    await expect.poll(() => page.getByTestId('install-sandbox').textContent()).toBe('on');
    await expect.poll(() => page.getByTestId('install-transport').textContent()).toBe('stdio');

    // The remote server: a value to type (its header's template variable), transport and sandbox shown.
    await page.getByLabel('Search the registries').fill('echo');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByTestId('registry-io.example/echo-remote').getByRole('button').click();
    await expect.poll(() => page.getByTestId('install-sandbox').textContent()).toBe('none (remote)');
    await expect.poll(() => page.getByTestId('install-transport').textContent()).toBe('streamable-http');
    await page.getByTestId('need-team').locator('input').fill('blue');
    await shoot(page, 'add-server');
    await page.getByRole('button', { name: 'Add io.example/echo-remote' }).click();
    await expect
      .poll(() => page.getByTestId('install-done').textContent())
      .toContain('Added server echo-remote');

    const written = await readFile(config, 'utf8');
    expect(written).toContain('# team gateway: this comment stays');
    expect(written).toMatch(/echo-remote:[\s\S]*trust: scan/);
    expect(written).toContain('team-blue');

    // The page itself shows where the new server stands: connected, its tools served, none held.
    await expect
      .poll(() => page.getByTestId('installed-state').textContent(), { timeout: 15_000 })
      .toBe('connected');
    await expect.poll(() => page.getByTestId('installed-served').textContent()).not.toBe('0');
    expect(await page.getByTestId('installed-quarantined').textContent()).toBe('0');
    await page.getByTestId('install-done').getByRole('link', { name: 'Servers' }).click();
    await expect
      .poll(() => page.getByTestId('state-echo-remote').textContent(), { timeout: 15_000 })
      .toMatch(/ready|connected|healthy/i);
    expect(pageErrors).toEqual([]);
  });

  /** Light, dark and a narrow viewport, as the other console screenshots. */
  async function shoot(p: Page, name: string) {
    await p.emulateMedia({ colorScheme: 'light' });
    await p.screenshot({ path: path.join(SHOTS, `${name}-light.png`), fullPage: true });
    await p.emulateMedia({ colorScheme: 'dark' });
    await p.waitForTimeout(300);
    await p.screenshot({ path: path.join(SHOTS, `${name}-dark.png`), fullPage: true });
    await p.emulateMedia({ colorScheme: 'light' });
    await p.setViewportSize({ width: 400, height: 860 });
    await p.waitForTimeout(300);
    await p.screenshot({ path: path.join(SHOTS, `${name}-narrow.png`), fullPage: true });
    await p.setViewportSize({ width: 1280, height: 900 });
  }
});
