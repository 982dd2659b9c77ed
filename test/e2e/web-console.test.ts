// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the config references ${env:…} on purpose.

import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, unlessChromium, widestClock } from '../support/chromium.js';
import { referenceServerBin } from '../support/fixture-servers.js';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = path.join(ROOT, 'docs/console');
const OPS_KEY = 'console-e2e-ops-key-0123456789';
const TIME_KEY = 'console-e2e-time-key-0123456789';
const NOISY_SECRET = 'console-e2e-noisy-secret-0123456789';

/**
 * The web console in a real browser (Debian's Chromium driven by playwright-core) against a real
 * `aperture serve` with auth on and a downstream MCP server (server-everything): log in, search,
 * open a tool, run it from the generated form, see validation errors, watch an MCP client's call
 * arrive in the live log, reconnect the server, run code, confinement of a toolset key, no
 * console errors, an axe accessibility scan and keyboard-only use. Screenshots go to docs/console.
 */
describe.skipIf(!CHROMIUM)(`web console in Chromium${unlessChromium}`, () => {
  let gateway: RunningGateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Every console error and uncaught page error, on any page of any context. */
  const browserErrors: string[] = [];
  /** Every answer of 404 any page received (its network log): the favicon was one. */
  const notFound: string[] = [];

  const watch = (p: Page) => {
    p.on('console', (message) => {
      if (message.type() === 'error') browserErrors.push(`${p.url()}: ${message.text()}`);
    });
    p.on('pageerror', (error) => browserErrors.push(`${p.url()}: ${error.message}`));
    p.on('response', (response) => {
      if (response.status() === 404) notFound.push(response.url());
    });
  };

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-console-'));
    const q = JSON.stringify;
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      [
        'server: { name: aperture-console-e2e }',
        'observability: { logLevel: warn }',
        'state: { driver: memory }',
        'servers:',
        `  everything: { command: ${q(process.execPath)}, args: [${q(referenceServerBin('server-everything'))}, stdio] }`,
        // A stdio server that writes a configured secret to stderr: the servers page masks it.
        `  noisy: { command: ${q(process.execPath)}, args: [${q(path.join(ROOT, 'test/fixtures/mcp/faulty-server.mjs'))}], env: { FAULTY_STDERR_LINE: "noisy starting with \${env:CONSOLE_NOISY_SECRET}" } }`,
        'toolsets:',
        '  - { name: time, namespaces: [time] }',
        '  - { name: demo, namespaces: [everything] }',
        'skills:',
        '  - name: tokyo_clock',
        '    description: The time in Tokyo.',
        '    steps:',
        '      - { id: now, tool: time:now, args: { timezone: Asia/Tokyo } }',
        'auth:',
        '  apiKeys:',
        '    - { name: ops, key: "${env:CONSOLE_OPS_KEY}", admin: true }',
        '    - { name: timekeeper, key: "${env:CONSOLE_TIME_KEY}", toolsets: [time] }',
        '',
      ].join('\n'),
    );
    process.env.CONSOLE_OPS_KEY = OPS_KEY;
    process.env.CONSOLE_TIME_KEY = TIME_KEY;
    process.env.CONSOLE_NOISY_SECRET = NOISY_SECRET;
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
    await fetch(`${gateway.url}/readyz`).then((r) => r.text());
    browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...widestClock() });
    page = await context.newPage();
    watch(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.[Symbol.asyncDispose]();
    delete process.env.CONSOLE_OPS_KEY;
    delete process.env.CONSOLE_TIME_KEY;
    delete process.env.CONSOLE_NOISY_SECRET;
  });

  /** Runs axe on the page; returns its serious and critical violations (rule id: target). */
  async function seriousViolations(p: Page): Promise<string[]> {
    // Injected through the DevTools protocol: the page's CSP forbids inline scripts, as it should.
    await p.evaluate(AXE_SOURCE);
    const violations = await p.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
      return (await axe.run()).violations as { id: string; impact: string; nodes: { target: string[] }[] }[];
    });
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  /** Whether the element's top-left corner and at least its first 40 px are on screen. */
  async function inViewport(p: Page, testId: string): Promise<boolean> {
    // Page expressions as text: this file is typed without the DOM's globals.
    return (await p.evaluate(`(() => {
      const box = document.querySelector('[data-testid="${testId}"]').getBoundingClientRect();
      return box.top >= 0 && box.left >= 0 && box.top + 40 <= innerHeight && box.right <= innerWidth + 1;
    })()`)) as boolean;
  }

  /** How much wider than the window the page is (0: no horizontal scrolling). */
  async function overflow(p: Page): Promise<number> {
    const [extra, wide] = (await p.evaluate(`(() => {
      const width = document.documentElement.clientWidth;
      // Only what widens the page: an element inside a scrolling region (a wide table) does not.
      const clipped = (e) => {
        for (let up = e.parentElement; up && up !== document.body; up = up.parentElement) {
          if (getComputedStyle(up).overflowX !== 'visible') return true;
        }
        return false;
      };
      const offenders = [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > width + 1 && !clipped(e))
        .slice(0, 5)
        .map((e) => e.tagName + '.' + e.className);
      return [document.documentElement.scrollWidth - width, offenders.join(' ')];
    })()`)) as [number, string];
    if (extra > 0) console.log(`wider than the window by ${extra}: ${wide}`);
    return extra;
  }

  /**
   * The page as it is, three times: `<name>-light.png` and `<name>-dark.png` at the current size
   * (the system's colour scheme emulated), and `<name>-narrow.png` at 400 px wide, where the page
   * must not scroll sideways and the navigation collapses behind its menu button.
   */
  async function shoot(p: Page, name: string, fullPage = true) {
    const size = p.viewportSize() ?? { width: 1280, height: 900 };
    await p.emulateMedia({ colorScheme: 'light' });
    await p.screenshot({ path: path.join(SHOTS, `${name}-light.png`), fullPage });
    await p.emulateMedia({ colorScheme: 'dark' });
    // Colours ease over 0.12 s: the shot waits for the new theme to have settled.
    await p.waitForTimeout(300);
    await p.screenshot({ path: path.join(SHOTS, `${name}-dark.png`), fullPage });
    await p.emulateMedia({ colorScheme: 'light' });
    await p.setViewportSize({ width: 400, height: 860 });
    await p.waitForTimeout(300);
    try {
      await expect.poll(() => overflow(p), { message: `${name} at 400 px` }).toBe(0);
      const nav = p.getByRole('navigation', { name: 'Pages' });
      if ((await nav.count()) > 0) expect(await nav.isVisible(), `${name}: navigation collapsed`).toBe(false);
      await p.screenshot({ path: path.join(SHOTS, `${name}-narrow.png`), fullPage });
    } finally {
      await p.setViewportSize(size);
    }
  }

  async function login(p: Page, key: string) {
    await p.goto(gateway.url);
    await p.getByLabel('API key or bearer token').fill(key);
    await p.getByRole('button', { name: 'Log in' }).click();
    await p.getByRole('navigation', { name: 'Pages' }).waitFor();
  }

  it('serves the page with a CSP that allows only its own assets, and asks for credentials', async () => {
    const response = await page.goto(gateway.url);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/style-src 'self' 'nonce-[^']+'(;|$)/);
    expect(csp.split('; ').filter((d) => d.includes('unsafe'))).toEqual(["style-src-attr 'unsafe-inline'"]);
    await page.getByLabel('API key or bearer token').waitFor();
    // Only the page and its assets are open: the JSON index and the API still need credentials.
    expect((await fetch(`${gateway.url}/console/console.js`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/`, { headers: { accept: 'application/json' } })).status).toBe(401);
    expect((await fetch(`${gateway.url}/api/admin/session`)).status).toBe(401);
    await shoot(page, 'login', false);
    // A wrong key is refused with the gateway's own error.
    await page.getByLabel('API key or bearer token').fill('not-a-key');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toMatch(/unauthorized/);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('logs in, searches, opens a tool, sees a validation error, then runs it from the form', async () => {
    await login(page, OPS_KEY);
    expect(await page.locator('header .who').textContent()).toContain('ops (admin)');
    await page.getByText(/of \d+ tools/).waitFor();
    // The token meter: flat listing against the metatools, counted for this caller's catalog.
    const meter = (await page.getByTestId('token-meter').textContent()) ?? '';
    const [, flat, meta] =
      /flat in tools\/list ([\d,]+) tokens; through the metatools .* ([\d,]+) tokens/.exec(meter) ?? [];
    expect(Number(flat?.replaceAll(',', ''))).toBeGreaterThan(0);
    expect(Number(meta?.replaceAll(',', ''))).toBeGreaterThan(0);
    await page.getByLabel('Search tools').fill('echo back a message');
    const hit = page.getByRole('link', { name: 'everything:echo' });
    await hit.waitFor();
    await expect(page.getByText(/results for/).textContent()).resolves.toMatch(
      /results for “echo back a message” \(search_tools ranking, strategy \w+/,
    );
    await expect(page.locator('.score').first().textContent()).resolves.toMatch(/score \d/);
    // Each result says why it matched: compactly on its row, in full (BM25F per term and field) on demand.
    await expect(page.getByTestId('why-everything:echo').textContent()).resolves.toMatch(
      /matched .*echo \(.*name/,
    );
    await page.getByRole('button', { name: 'Why everything:echo?' }).click();
    const why = page.getByTestId('explanation');
    await expect(why.getByRole('heading').textContent()).resolves.toBe('Why everything:echo ranks here');
    await expect(why.textContent()).resolves.toMatch(/Lexical \(BM25F\)score \d/);
    await expect(why.getByRole('row', { name: /^echo / }).count()).resolves.toBe(1);
    // The explanation opens beside its result, in view, not below the list.
    expect(await inViewport(page, 'explanation')).toBe(true);
    await shoot(page, 'catalog');
    expect(await seriousViolations(page)).toEqual([]);

    await hit.click();
    await page.getByRole('heading', { name: /everything:echo/ }).waitFor();
    // The tool in every export format.
    await page.getByText('In every format').click();
    await page.getByLabel('Format', { exact: true }).selectOption('anthropic');
    await expect.poll(() => page.getByTestId('format-value').textContent()).toContain('"input_schema"');
    await page.getByLabel('Format', { exact: true }).selectOption('typescript');
    await expect.poll(() => page.getByTestId('format-value').textContent()).toMatch(/message: string/);
    // Nothing filled in: the gateway's input validation answers, with its code.
    await page.getByRole('button', { name: 'Run' }).click();
    const error = page.getByTestId('run-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^validation_input: .*message/);

    await page.getByLabel(/^message/).fill('hello from the console');
    await page.getByRole('button', { name: 'Run' }).click();
    const result = page.getByTestId('result');
    await result.waitFor();
    expect(await result.textContent()).toContain('hello from the console');
    await shoot(page, 'tool');
    expect(await seriousViolations(page)).toEqual([]);

    // Raw JSON mode sends exactly what was typed: a wrong type is the gateway's validation error.
    await page.getByLabel('Raw JSON').check();
    await page.getByLabel('Arguments (JSON)').fill('{"message": 42}');
    await page.getByRole('button', { name: 'Run' }).click();
    await expect(page.getByTestId('run-error').textContent()).resolves.toMatch(/validation_input/);
  }, 60_000);

  it("clears a tool's Try-it result when another tool is opened", async () => {
    await page.goto(`${gateway.url}/#/catalog`);
    await page.goto(`${gateway.url}/#/tool/${encodeURIComponent('everything:echo')}`);
    await page.getByLabel(/^message/).fill('left behind?');
    await page.getByRole('button', { name: 'Run' }).click();
    await expect(page.getByTestId('result').textContent()).resolves.toContain('left behind?');
    // Another tool, opened in the same page (a hash change, as a link in the console does).
    await page.evaluate(`location.hash = ${JSON.stringify(`#/tool/${encodeURIComponent('time:now')}`)}`);
    await page.getByRole('heading', { name: /time:now/ }).waitFor();
    await expect(page.getByTestId('result').count()).resolves.toBe(0);
    await expect(page.getByTestId('run-error').count()).resolves.toBe(0);
    await expect(page.getByText('left behind?').count()).resolves.toBe(0);
  });

  it('opens the search explanation in view on a narrow screen too', async () => {
    const narrow = await browser.newContext(widestClock());
    const p = await narrow.newPage();
    watch(p);
    try {
      await login(p, OPS_KEY);
      await p.setViewportSize({ width: 400, height: 800 });
      // Collapsed navigation: a menu button opens it.
      const nav = p.getByRole('navigation', { name: 'Pages' });
      expect(await nav.isVisible()).toBe(false);
      await p.getByRole('button', { name: 'Menu' }).click();
      expect(await nav.isVisible()).toBe(true);
      await nav.getByRole('link', { name: 'Catalog' }).click();
      expect(await nav.isVisible()).toBe(false);
      await p.getByLabel('Search tools').fill('echo back a message');
      await p.getByRole('button', { name: 'Why everything:echo?' }).click();
      await p.getByTestId('explanation').waitFor();
      await expect.poll(() => inViewport(p, 'explanation')).toBe(true);
      expect(await overflow(p)).toBe(0);
    } finally {
      await narrow.close();
    }
  });

  it('shows a call made by an MCP client in the live log within 1 s', async () => {
    await page.goto(`${gateway.url}/#/activity`);
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    await expect.poll(() => page.getByTestId('live-status').textContent()).toMatch(/^Live/);
    const client = new Client({ name: 'console-e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': OPS_KEY } },
      }),
    );
    try {
      await client.callTool({
        name: 'run_tool',
        arguments: { tool_id: 'everything:echo', args: { message: 'from an agent', api_key: 'hide-me' } },
      });
      const row = page.getByTestId('activity-log').getByRole('row', { name: /from an agent/ });
      await row.waitFor({ timeout: 1000 });
      const text = (await row.textContent()) ?? '';
      expect(text).toContain('everything:echo');
      expect(text).toContain('ok');
      expect(await row.getByTestId('surface').textContent()).toBe('mcp');
      expect(text).not.toContain('hide-me');
      // Filtered by surface: the console's own runs (REST) without the agent's MCP call.
      await page.getByLabel('Surface').selectOption('rest');
      await page
        .getByTestId('activity-log')
        .getByRole('row', { name: /hello from the console/ })
        .waitFor();
      await expect(
        page
          .getByTestId('activity-log')
          .getByRole('row', { name: /from an agent/ })
          .count(),
      ).resolves.toBe(0);
      const surfaces = await page.getByTestId('activity-log').getByTestId('surface').allTextContents();
      expect(surfaces.length).toBeGreaterThan(0);
      expect(new Set(surfaces)).toEqual(new Set(['rest']));
      await page.getByLabel('Surface').selectOption('');
    } finally {
      await client.close();
    }
    // The charts (uPlot, loaded with the page) draw the last hour from the gateway's own calls.
    await page.reload();
    await page.getByTestId('activity-charts').locator('canvas').first().waitFor();
    await expect(page.getByTestId('activity-charts').locator('canvas').count()).resolves.toBe(2);
    await shoot(page, 'activity');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('lists toolsets with their members and skills with their steps, and plans a skill', async () => {
    await page.goto(`${gateway.url}/#/toolsets`);
    const demo = page.getByTestId('toolset-demo');
    await demo.getByText(/demo — \d+ tools, served at/).click();
    await expect(demo.getByRole('link', { name: 'everything:echo' }).count()).resolves.toBe(1);
    await expect(page.getByTestId('toolset-time').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Plan tokyo_clock' }).click();
    await expect.poll(() => page.getByTestId('skill-plan').textContent()).toContain('time:now');
    await shoot(page, 'toolsets');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('reconnects a server from the servers page', async () => {
    await page.goto(`${gateway.url}/#/servers`);
    await expect(page.getByTestId('state-everything').textContent()).resolves.toBe('connected');
    // The MCP revision each server speaks, since when it is connected, and its last stderr lines.
    await expect(page.getByTestId('protocol-everything').textContent()).resolves.toMatch(
      /^\d{4}-\d{2}-\d{2}$/,
    );
    await expect(page.getByTestId('uptime-everything').textContent()).resolves.toMatch(/^\d+ (s|min \d+ s)$/);
    await page
      .getByTestId('stderr-everything')
      .getByText(/Recent stderr of everything/)
      .click();
    await expect(page.getByTestId('stderr-everything').locator('pre').textContent()).resolves.toContain(
      'Starting default (STDIO) server',
    );
    // A secret a server writes to stderr is masked, as in every other output.
    const noisy = (await page.getByTestId('stderr-noisy').locator('pre').textContent()) ?? '';
    expect(noisy).toContain('noisy starting with [REDACTED]');
    expect(noisy).not.toContain(NOISY_SECRET);
    expect(await page.content()).not.toContain(NOISY_SECRET);
    await expect(page.getByTestId('circuit-everything').textContent()).resolves.toBe('closed');
    await page.getByRole('button', { name: 'Reconnect everything' }).click();
    await expect
      .poll(() => page.getByTestId('servers-message').textContent(), { timeout: 15_000 })
      .toBe('everything reconnected');
    await expect(page.getByTestId('state-everything').textContent()).resolves.toBe('connected');
    await shoot(page, 'servers');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('runs a program in code mode and shows its value and tool calls', async () => {
    await page.goto(`${gateway.url}/#/code`);
    // CodeMirror, loaded when the page opens; its text area is labelled "Program".
    await page
      .getByRole('textbox', { name: 'Program' })
      .fill("const r = await tools.call('everything:echo', { message: 'x' }); return { sum: 1 + 2 };");
    await page.getByText('code_api: the declarations').click();
    await expect.poll(() => page.getByTestId('code-api').textContent()).toMatch(/echo\(args: \{/);
    await page.getByRole('button', { name: 'Run program' }).click();
    const result = page.getByTestId('code-result');
    await result.waitFor();
    const text = (await result.textContent()) ?? '';
    expect(text).toContain('"sum": 3');
    expect(text).toContain('everything:echo ok');
    await shoot(page, 'code');
    // The program's own tool call is code mode's in the live log, whichever surface ran it.
    await page.goto(`${gateway.url}/#/activity`);
    await page.getByLabel('Surface').selectOption('code');
    const inner = page.getByTestId('activity-log').getByRole('row', { name: /everything:echo/ });
    await expect(inner.first().getByTestId('surface').textContent()).resolves.toBe('code');
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('shows the effective config with the keys masked', async () => {
    await page.goto(`${gateway.url}/#/config`);
    const config = page.getByTestId('config');
    await expect.poll(() => config.textContent()).toContain('"apiKeys"');
    const text = (await config.textContent()) ?? '';
    expect(text).not.toContain(OPS_KEY);
    expect(text).not.toContain(TIME_KEY);
    expect(text).toContain('[REDACTED]');
    // What the file set, apart from the defaults: its sections, and not one it left alone.
    const sections = await config.getByRole('heading').allTextContents();
    expect(sections).toEqual(expect.arrayContaining(['server', 'servers', 'toolsets', 'skills', 'auth']));
    expect(sections).not.toContain('search');
    expect(text).toContain('aperture-console-e2e');
    // The defaults are there, collapsed, and hold what the file did not set.
    const defaults = page.getByTestId('config-defaults');
    expect(await defaults.getAttribute('open')).toBeNull();
    expect(await defaults.locator('pre').textContent()).toContain('"search"');
    // config validate on a pasted file: the bad key named, then a good file accepted.
    await page.getByLabel('Config file (pasted)').fill('server: { prot: 9000 }\n');
    await page.getByRole('button', { name: 'Validate' }).click();
    await expect
      .poll(() => page.getByTestId('config-check').textContent())
      .toMatch(/^config_invalid: .*prot/);
    await page.getByLabel('Config file (pasted)').fill('server: { port: 9000 }\n');
    await page.getByRole('button', { name: 'Validate' }).click();
    await expect.poll(() => page.getByTestId('config-check').textContent()).toMatch(/^Valid\./);
    // The top of the page only: further down, the servers' commands show this machine's paths.
    await shoot(page, 'config', false);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it('a key confined to one toolset sees only that toolset and no admin pages', async () => {
    const confined = await browser.newContext();
    const p = await confined.newPage();
    watch(p);
    try {
      await login(p, TIME_KEY);
      const count = await p.getByText(/of \d+ tools/).textContent();
      const [, shown, total] = /(\d+) of (\d+) tools/.exec(count ?? '') ?? [];
      expect(Number(total)).toBeGreaterThan(0);
      expect(shown).toBe(total);
      const ids = await p.locator('.row a').allTextContents();
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.every((id) => id.startsWith('time:'))).toBe(true);
      // Its toolsets page holds its one toolset, and no skill whose steps it could not run.
      await p.goto(`${gateway.url}/#/toolsets`);
      await p.getByTestId('toolset-time').waitFor();
      await expect(p.getByTestId('toolset-demo').count()).resolves.toBe(0);
      const nav = await p.getByRole('navigation', { name: 'Pages' }).textContent();
      expect(nav).not.toMatch(/Servers|Activity|Config/);
      // The API says no as well, not just the menu.
      const answer = await p.evaluate(async (key) => {
        const r = await fetch('/api/admin/sources', { headers: { 'x-api-key': key } });
        return { status: r.status, body: (await r.json()) as { error: { code: string } } };
      }, TIME_KEY);
      expect(answer.status).toBe(403);
      expect(answer.body.error.code).toBe('forbidden');
    } finally {
      await confined.close();
    }
  });

  it('shows a key without admin rights a "needs admin" state on the admin pages, never a endless loading', async () => {
    const confined = await browser.newContext();
    const p = await confined.newPage();
    watch(p);
    try {
      await login(p, TIME_KEY);
      for (const [route, name] of [
        ['servers', 'servers-needs-admin'],
        ['activity', undefined],
        ['config', undefined],
      ] as const) {
        await p.goto(`${gateway.url}/#/${route}`);
        const state = p.getByTestId('needs-admin');
        await state.waitFor({ timeout: 5000 });
        expect(await state.textContent()).toMatch(/^Needs admin.*forbidden: /);
        expect(await p.getByText(/Loading/).count()).toBe(0);
        if (name) await shoot(p, name);
      }
    } finally {
      await confined.close();
    }
  }, 60_000);

  it('follows the system colour scheme, and remembers the theme chosen with the toggle', async () => {
    const themed = await browser.newContext({ colorScheme: 'dark' });
    const p = await themed.newPage();
    watch(p);
    const background = () => p.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    try {
      await login(p, OPS_KEY);
      const dark = await background();
      await p.getByRole('button', { name: 'Switch to the light theme' }).click();
      const light = await background();
      expect(light).not.toBe(dark);
      expect(await p.evaluate("localStorage.getItem('aperture.theme')")).toBe('light');
      // Remembered across loads, whatever the system says.
      await p.reload();
      await p.getByRole('button', { name: 'Switch to the dark theme' }).waitFor();
      expect(await background()).toBe(light);
    } finally {
      await themed.close();
    }
  });

  it('has an icon: the page links one, /favicon.ico answers, and nothing the console asked for was a 404', async () => {
    await page.goto(gateway.url);
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    for (const url of [href ?? '/missing', '/favicon.ico']) {
      const answer = await page.request.get(new URL(url, gateway.url).toString());
      expect(answer.status(), url).toBe(200);
      expect(answer.headers()['content-type']).toBe('image/svg+xml');
      expect(await answer.text()).toMatch(/^<svg /);
    }
    expect(notFound).toEqual([]);
  });

  it('shows server uptime compactly, on one line, also at 400 px', async () => {
    await page.goto(`${gateway.url}/#/servers`);
    const cell = page.getByTestId('uptime-everything');
    await expect.poll(() => cell.textContent()).toMatch(/^\d+ (s|min \d+ s|h \d+ min|d \d+ h)$/);
    // The line boxes the text takes: one when it does not wrap.
    const lines = () =>
      page.evaluate(`(() => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelector('[data-testid="uptime-everything"]'));
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      })()`);
    expect(await lines()).toBe(1);
    await page.setViewportSize({ width: 400, height: 860 });
    try {
      expect(await lines()).toBe(1);
      // The table scrolls inside its own region; the page itself does not.
      expect(await overflow(page)).toBe(0);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('is usable with the keyboard alone: search, open a tool, run it', async () => {
    const keyboard = await browser.newContext();
    const p = await keyboard.newPage();
    watch(p);
    try {
      await login(p, OPS_KEY);
      await p.getByText(/of \d+ tools/).waitFor();
      // From the top of the page, Tab until the search box has focus.
      await p.evaluate('document.activeElement?.blur()');
      for (let i = 0; i < 20; i += 1) {
        await p.keyboard.press('Tab');
        if ((await p.evaluate('document.activeElement?.id')) === 'search') break;
      }
      expect(await p.evaluate('document.activeElement?.id')).toBe('search');
      await p.keyboard.type('echo back a message');
      await p.getByRole('link', { name: 'everything:echo' }).waitFor();
      for (let i = 0; i < 10; i += 1) {
        await p.keyboard.press('Tab');
        if ((await p.evaluate('document.activeElement?.textContent')) === 'everything:echo') break;
      }
      expect(await p.evaluate('document.activeElement?.textContent')).toBe('everything:echo');
      await p.keyboard.press('Enter');
      await p.getByRole('heading', { name: /everything:echo/ }).waitFor();
      for (let i = 0; i < 30; i += 1) {
        await p.keyboard.press('Tab');
        if ((await p.evaluate('document.activeElement?.id')) === 'arg-message') break;
      }
      expect(await p.evaluate('document.activeElement?.id')).toBe('arg-message');
      await p.keyboard.type('typed only');
      await p.keyboard.press('Enter');
      await expect(p.getByTestId('result').textContent()).resolves.toContain('typed only');
    } finally {
      await keyboard.close();
    }
  });

  it('logged no console errors on any page', () => {
    // Chromium logs every 4xx fetch as a console error: the 400 (validation), 401 (wrong key) and
    // 403 (confined key) the tests provoke on purpose are those; nothing else may appear.
    const provoked = /Failed to load resource: the server responded with a status of 40[013] /;
    expect(browserErrors.filter((e) => !provoked.test(e)).join('\n')).toBe('');
    // …and the watcher did see those: it is listening, so an empty list above means something.
    expect(browserErrors.length).toBeGreaterThan(0);
    expect(notFound).toEqual([]);
  });
});

/** `console.enabled: false`: browsers get the JSON index at `/`, and no console assets exist. */
describe('console.enabled: false', () => {
  let gateway: RunningGateway;
  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'aperture-console-off-'));
    await writeFile(
      path.join(dir, 'aperture.yaml'),
      'console: { enabled: false }\nstate: { driver: memory }\nobservability: { logLevel: warn }\n',
    );
    gateway = await startHttpGateway(['--config', path.join(dir, 'aperture.yaml')]);
  });
  afterAll(async () => {
    await gateway?.[Symbol.asyncDispose]();
  });

  it('serves no console, even to a browser, on a loopback bind', async () => {
    const page = await fetch(`${gateway.url}/`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('application/json');
    expect(((await page.json()) as { endpoints: unknown }).endpoints).toBeDefined();
    expect((await fetch(`${gateway.url}/console/console.js`)).status).toBe(404);
  });

  it('serves the console on a loopback bind by default', async () => {
    await using on = await startHttpGateway(['--config', path.join(ROOT, 'test/fixtures/gateway.yaml')]);
    const page = await fetch(`${on.url}/`, { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('/console/console.js');
  });
});
