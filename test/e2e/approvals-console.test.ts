import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, unlessChromium } from '../support/chromium.js';
import { ROOT, type RunningGateway, startHttpGateway } from './gateway-process.js';

const AGENT_KEY = 'console-approvals-agent-0123456789';
const ADMIN_KEY = 'console-approvals-admin-0123456789';

function text(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

/**
 * Approving in the web console (Debian's Chromium driven by playwright-core): an agent's call held
 * by an `effect: approve` rule waits on the Activity page; the admin presses Approve and the call
 * runs, presses Deny on the next and its caller gets `approval_denied`; the audit trail on the same
 * page shows both answers.
 */
describe.skipIf(!CHROMIUM)(`approvals in the web console${unlessChromium}`, { timeout: 60_000 }, () => {
  let dir: string;
  let gateway: RunningGateway;
  let browser: Browser;
  let page: Page;
  let agent: Client;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'aperture-approvals-console-'));
    const config = path.join(dir, 'aperture.yaml');
    await writeFile(
      config,
      [
        'server: { name: approvals-console }',
        'tools:',
        `  modules: [${JSON.stringify(path.join(ROOT, 'test/fixtures/approvals/repo-tools.ts'))}]`,
        'exposure: flat',
        'state: { driver: memory }',
        'observability: { logLevel: warn }',
        'auth:',
        '  apiKeys:',
        `    - { name: agent, key: ${AGENT_KEY} }`,
        `    - { name: ops, key: ${ADMIN_KEY}, admin: true }`,
        'policies:',
        '  - { name: ask-deletes, effect: approve, tools: ["repo:delete"], reason: Deleting cannot be undone }',
        `audit: { path: ${JSON.stringify(path.join(dir, 'audit.jsonl'))} }`,
      ].join('\n'),
    );
    gateway = await startHttpGateway(['--config', config]);
    agent = new Client({ name: 'console-agent', version: '1.0.0' });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), {
        requestInit: { headers: { 'x-api-key': AGENT_KEY } },
      }),
    );
    browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(gateway.url);
    await page.getByLabel('API key or bearer token').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    await page.goto(`${gateway.url}/#/activity`);
  }, 60_000);

  afterAll(async () => {
    await agent?.close().catch(() => {});
    await browser?.close();
    await gateway?.[Symbol.asyncDispose]();
    await rm(dir, { recursive: true, force: true });
  });

  it('approves a waiting call with a click, and the call runs', async () => {
    await page.getByTestId('approvals-empty').waitFor({ timeout: 10_000 });
    const call = agent.callTool({ name: 'repo__delete', arguments: { repo: 'acme/site', token: 'hunter2' } });
    const row = page.getByTestId('approval-row');
    await row.waitFor({ timeout: 10_000 });
    const shown = await row.innerText();
    expect(shown).toContain('repo:delete');
    expect(shown).toContain('apikey:agent');
    expect(shown).toContain('Deleting cannot be undone');
    expect(shown).toContain('[REDACTED]');
    expect(shown).not.toContain('hunter2');
    await row.getByTestId('approve').click();
    expect(text(await call)).toBe('deleted acme/site');
    await page.getByTestId('approvals-empty').waitFor({ timeout: 10_000 });
  });

  it('denies the next one, whose caller gets approval_denied, and shows both answers in the audit trail', async () => {
    const call = agent.callTool({ name: 'repo__delete', arguments: { repo: 'acme/api' } });
    const row = page.getByTestId('approval-row');
    await row.waitFor({ timeout: 10_000 });
    await row.getByTestId('deny').click();
    const result = await call;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/approval_denied/);
    // The trail is read again every few seconds: reload the page rather than wait for it.
    await page.reload();
    const audit = page.getByTestId('audit-table');
    await audit.waitFor({ timeout: 10_000 });
    const trail = await audit.innerText();
    expect(trail).toMatch(/approval\.answer\s+apikey:ops\s+repo:delete\s+approved/);
    expect(trail).toMatch(/approval\.answer\s+apikey:ops\s+repo:delete\s+denied/);
    expect(pageErrors).toEqual([]);
  });
});
