import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, unlessChromium, widestClock } from '../support/chromium.js';
import {
  type AuthorizationServer,
  driveLogin,
  type ProtectedMcpServer,
  startAuthorizationServer,
  startProtectedMcpServer,
} from '../support/oauth-servers.js';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

const TOKEN_KEY = 'console-oauth-token-key-0123456789abcdef';
const OPS_KEY = 'console-oauth-ops-key-0123456789ab';
const ALICE_KEY = 'console-oauth-alice-key-0123456789';
const SHOTS = path.join(ROOT, 'docs/console');

/**
 * The servers page's OAuth "Log in" button against a real authorization server (oidc-provider)
 * and a protected MCP server: an admin logs a shared server in (the token set every caller uses)
 * and the server connects; on a per-user server each caller logs in for themselves; a non-admin
 * may not replace the shared token set. The login itself is driven over HTTP (login and consent
 * pages), and completes at the gateway's own `/oauth/callback`. No token ever reaches the page.
 */
describe.skipIf(!CHROMIUM)(`web console OAuth login in Chromium${unlessChromium}`, () => {
  let dir: string;
  let as: AuthorizationServer;
  let mcp: ProtectedMcpServer;
  let gateway: RunningGateway;
  let browser: Browser;
  let page: Page;

  const post = (name: string, key: string) =>
    fetch(`${gateway.url}/api/admin/sources/${name}/login`, {
      method: 'POST',
      headers: { 'x-api-key': key },
    });

  beforeAll(async () => {
    process.env.CONSOLE_OAUTH_TOKEN_KEY = TOKEN_KEY;
    dir = mkdtempSync(path.join(tmpdir(), 'aperture-console-oauth-'));
    let issuer = '';
    mcp = await startProtectedMcpServer(() => issuer);
    as = await startAuthorizationServer({ resources: () => [mcp.url], accessTokenTtlSec: 600 });
    issuer = as.issuer;
    const config = path.join(dir, 'aperture.yaml');
    writeFileSync(
      config,
      [
        'server: { name: console-oauth-e2e }',
        'observability: { logLevel: warn }',
        'tools: { builtin: false }',
        'auth:',
        '  apiKeys:',
        `    - { name: ops, key: "${OPS_KEY}", admin: true }`,
        `    - { name: alice, key: "${ALICE_KEY}" }`,
        'servers:',
        `  shared: { url: "${mcp.url}", transport: streamable-http, oauth: {} }`,
        `  team: { url: "${mcp.url}", transport: streamable-http, oauth: { perUser: true } }`,
        `state: { dir: "${path.join(dir, 'state')}", tokenKey: "\${secret:CONSOLE_OAUTH_TOKEN_KEY}" }`,
        '',
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config], dir);
    browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
    page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 }, ...widestClock() })
    ).newPage();
    await page.goto(gateway.url);
    await page.getByLabel('API key or bearer token').fill(OPS_KEY);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.[Symbol.asyncDispose]();
    await mcp?.[Symbol.asyncDispose]();
    await as?.[Symbol.asyncDispose]();
    rmSync(dir, { recursive: true, force: true });
    delete process.env.CONSOLE_OAUTH_TOKEN_KEY;
  });

  /** Clicks "Log in to NAME" and answers the URL the page then links to. */
  async function startLogin(name: string): Promise<string> {
    await page.getByRole('button', { name: `Log in to ${name}` }).click();
    const link = page.getByTestId(`oauth-answer-${name}`).getByRole('link', { name: /authorization server/ });
    await link.waitFor();
    return (await link.getAttribute('href')) ?? '';
  }

  it('an admin logs a shared server in from the servers page, and it connects', async () => {
    await page.goto(`${gateway.url}/#/servers`);
    const shared = page.getByTestId('oauth-shared');
    await expect(shared.textContent()).resolves.toMatch(/no token set yet|shared: no token/);
    await expect
      .poll(() => page.getByTestId('state-shared').textContent(), { timeout: 15_000 })
      .toBe('failed');
    const loginUrl = await startLogin('shared');
    expect(loginUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
    expect(new URL(loginUrl).searchParams.get('redirect_uri')).toBe(`${gateway.url}/oauth/callback`);
    const callback = await driveLogin(loginUrl, 'operator');
    const landed = await fetch(callback);
    expect(await landed.text()).toContain('Logged in to shared (the shared token set)');
    expect(landed.status).toBe(200);
    // A login link is used once.
    expect((await fetch(callback)).status).toBe(400);
    // The page watches for the new token set; the gateway connects the server at once.
    await expect
      .poll(() => shared.textContent(), { timeout: 15_000 })
      .toMatch(/shared: token present, expires \d{4}-/);
    await expect
      .poll(() => page.getByTestId('state-shared').textContent(), { timeout: 15_000 })
      .toBe('connected');
    const call = await fetch(`${gateway.url}/api/tools/shared:whoami`, {
      method: 'POST',
      headers: { 'x-api-key': ALICE_KEY, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(
      ((await call.json()) as { result?: { structuredContent?: unknown } }).result?.structuredContent,
    ).toEqual({ sub: 'operator' });
    // Light, dark, and 400 px wide (where the page must not scroll sideways: the table does).
    await page.emulateMedia({ colorScheme: 'light' });
    await page.screenshot({ path: path.join(SHOTS, 'servers-oauth-light.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(SHOTS, 'servers-oauth-dark.png'), fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 400, height: 860 });
    try {
      await page.waitForTimeout(300);
      const sideways = () =>
        page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      await expect.poll(sideways).toBe(0);
      await page.screenshot({ path: path.join(SHOTS, 'servers-oauth-narrow.png'), fullPage: true });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    // No token reached the page.
    const html = await page.content();
    for (const token of [...mcp.tokens, ...as.refreshTokens]) expect(html.includes(token)).toBe(false);
  }, 60_000);

  it("on a per-user server the button starts the caller's own login", async () => {
    const loginUrl = await startLogin('team');
    await driveLogin(loginUrl, 'ops-person').then(async (callback) => {
      const landed = await fetch(callback);
      expect(await landed.text()).toContain('Logged in to team as ops');
    });
    await expect
      .poll(() => page.getByTestId('oauth-team').textContent(), { timeout: 15_000 })
      .toMatch(/ops: token present/);
    // Not the shared set: that one is still missing for this server.
    expect(await page.getByTestId('oauth-team').textContent()).not.toMatch(/shared: token present/);

    // A non-admin logs in for themselves on a per-user server…
    const own = await post('team', ALICE_KEY);
    expect(own.status).toBe(200);
    const { loginUrl: aliceUrl } = (await own.json()) as { loginUrl: string };
    expect((await fetch(await driveLogin(aliceUrl, 'alice'))).status).toBe(200);
    await expect
      .poll(() => page.getByTestId('oauth-team').textContent(), { timeout: 15_000 })
      .toMatch(/alice: token present/);
  }, 60_000);

  it('refuses a non-admin the shared login, and names unknown servers', async () => {
    const refused = await post('shared', ALICE_KEY);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const unknown = await post('nowhere', OPS_KEY);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const noCredentials = await fetch(`${gateway.url}/api/admin/sources/team/login`, { method: 'POST' });
    expect(noCredentials.status).toBe(401);
  });
});
