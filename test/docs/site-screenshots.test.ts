import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, unlessChromium } from '../support/chromium.js';

/*
 * The built documentation site (`npm run docs`) in Chromium, light and dark: the home page, the
 * generated configuration reference and a guide render, search is there, the dark theme applies, and
 * the screenshots are written to docs/screenshots/ (committed beside the site).
 */

const ROOT = path.join(import.meta.dirname, '..', '..');
const SITE = path.join(ROOT, 'docs', '.vitepress', 'dist');
const SHOTS = path.join(ROOT, 'docs', 'screenshots');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** The built site over HTTP, as a static host serves it (`/guide/` is `guide/index.html`). */
function serveSite(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    let file = path.join(SITE, decodeURIComponent(url.pathname));
    if (!file.startsWith(SITE)) file = path.join(SITE, '404.html');
    if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, 'index.html');
    if (!existsSync(file)) {
      res.writeHead(404, { 'content-type': TYPES['.html'] });
      res.end(readFileSync(path.join(SITE, '404.html')));
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const PAGES = [
  { name: 'home', url: '/', heading: 'Aperture' },
  { name: 'config-reference', url: '/reference/config.html', heading: 'Configuration reference' },
  { name: 'guide-getting-started', url: '/guide/getting-started.html', heading: 'Getting started' },
] as const;

describe.skipIf(!CHROMIUM)(`documentation site in Chromium${unlessChromium}`, () => {
  let server: Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    expect(
      existsSync(path.join(SITE, 'index.html')),
      'docs/.vitepress/dist is missing: run `npm run docs`',
    ).toBe(true);
    mkdirSync(SHOTS, { recursive: true });
    server = await serveSite();
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM as string, args: ['--no-sandbox'] });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  for (const scheme of ['light', 'dark'] as const) {
    it.each(PAGES.map((p) => [p.name, p] as const))(
      `renders %s in the ${scheme} theme`,
      async (_name, target) => {
        const context = await browser.newContext({
          viewport: { width: 1280, height: 860 },
          colorScheme: scheme,
        });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (error) => errors.push(error.message));
        try {
          const response = await page.goto(`${base}${target.url}`, { waitUntil: 'networkidle' });
          expect(response?.status()).toBe(200);
          await expect
            .poll(() => page.locator('h1').first().textContent(), { timeout: 10_000 })
            .toContain(target.heading);
          // The theme follows the reader's colour scheme, and local search is on every page.
          expect(
            (await page.locator('html').getAttribute('class'))?.split(/\s+/).includes('dark') ?? false,
          ).toBe(scheme === 'dark');
          expect(await page.locator('.VPNavBarSearch button, #local-search button').count()).toBeGreaterThan(
            0,
          );
          if (target.name === 'config-reference') {
            expect(
              await page.locator('table code').getByText('http.maxConnections', { exact: true }).count(),
            ).toBe(1);
          }
          await page.screenshot({ path: path.join(SHOTS, `${target.name}-${scheme}.png`) });
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
      },
      60_000,
    );
  }
});
