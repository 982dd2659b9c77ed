import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP, consoleRoutes, pageCsp } from './console-routes.js';

describe('consoleRoutes', () => {
  let app: Hono;
  beforeAll(async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'console-assets-'));
    const dir = path.join(root, 'console');
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'index.html'),
      '<!doctype html><html><head><title>c</title></head></html>',
    );
    await writeFile(path.join(dir, 'console.js'), 'export {};');
    await writeFile(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await writeFile(path.join(root, 'secret.txt'), 'outside');
    app = new Hono();
    app.route('/', consoleRoutes({ assetsDir: dir }));
    app.get('/', (c) => c.json({ index: true }));
    app.notFound((c) => c.text('404', 404));
  });

  it('serves the page to browsers with the CSP, and the JSON index to other clients', async () => {
    const page = await app.request('/', { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const csp = page.headers.get('content-security-policy') ?? '';
    const html = await page.text();
    expect(html).toContain('<title>c</title>');
    // A fresh style nonce per load, in the header and in the page's meta, and nothing else added.
    const nonce = /<meta name="csp-nonce" content="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(csp).toBe(pageCsp(nonce));
    expect(csp).toContain(`style-src 'self' 'nonce-${nonce}'`);
    const again = await app.request('/', { headers: { accept: 'text/html' } });
    expect(again.headers.get('content-security-policy')).not.toBe(csp);
    const json = await app.request('/', { headers: { accept: 'application/json' } });
    expect(await json.json()).toEqual({ index: true });
  });

  it('serves assets with their type, and never a file outside its folder', async () => {
    const script = await app.request('/console/console.js');
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect(script.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    for (const attempt of [
      '/console/../secret.txt',
      '/console/%2e%2e/secret.txt',
      '/console/%2e%2e%2fsecret.txt',
    ]) {
      const answer = await app.request(attempt);
      expect(answer.status, attempt).toBe(404);
    }
    expect((await app.request('/console/missing.js')).status).toBe(404);
  });

  // Regression ("Hardening, round two"): `decodeURIComponent` threw and the request became a 500.
  it('answers a malformed %-escape with 400 invalid_request in the error shape', async () => {
    const answer = await app.request('/console/%E0%A4%A');
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
  });

  it("answers /favicon.ico with the console's SVG icon, so a browser's own request is no 404", async () => {
    const icon = await app.request('/favicon.ico');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    expect(await icon.text()).toContain('<svg');
  });

  it("allows only the console's own scripts, styles and API", () => {
    expect(CONSOLE_CSP).toContain("default-src 'none'");
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).toContain("connect-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(CONSOLE_CSP).not.toMatch(/\*/);
    // Inline style attributes only (the code editor's): no inline script, no unnamed <style>.
    expect(CONSOLE_CSP.split('; ').filter((d) => d.includes('unsafe'))).toEqual([
      "style-src-attr 'unsafe-inline'",
    ]);
  });
});
