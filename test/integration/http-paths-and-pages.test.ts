import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/app/gateway.js';
import { DEFAULT_PAGE_CSP } from '../../src/surfaces/http/security-headers.js';
import { gatewayFrom } from '../support/in-process-gateway.js';

/**
 * Regressions of "Hardening, round two": a malformed %-escape under `/console/` was a 500 before
 * auth, and text pages went out without `nosniff`. Checked as classes: every route that takes a
 * path segment, every kind of answer.
 */
describe('paths and pages of the HTTP server', () => {
  let gateway: Gateway;
  let url: string;
  beforeAll(async () => {
    gateway = await gatewayFrom({ console: { enabled: true } });
    url = (await gateway.serveHttp('127.0.0.1', 0)).url;
  });
  afterAll(() => gateway.close());

  const bad = '%E0%A4%A';
  const paths = [
    `/console/${bad}`,
    `/console/app${bad}.js`,
    `/api/tools/${bad}`,
    `/mcp/${bad}`,
    `/api/admin/approvals/${bad}/approve`,
    `/a2a/${bad}`,
    `/a2a/v1/tasks/${bad}`,
    `/${bad}`,
  ];

  it('answers a malformed %-escape in any path as the caller’s mistake, never a 5xx', async () => {
    for (const path of paths) {
      for (const method of ['GET', 'POST']) {
        const answer = await fetch(url + path, {
          method,
          headers: { accept: 'text/html', 'content-type': 'application/json', 'x-aperture-request': '1' },
          ...(method === 'POST' ? { body: '{}' } : {}),
        });
        await answer.text();
        expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(answer.status, `${method} ${path}`).toBeLessThan(500);
      }
    }
    const console = await fetch(`${url}/console/${bad}`);
    expect(console.status).toBe(400);
    expect(await console.json()).toEqual({
      success: false,
      error: { code: 'invalid_request', message: expect.any(String) },
    });
  });

  it('sends nosniff with every answer, and a restrictive CSP with every text page', async () => {
    const answers = await Promise.all(
      [
        '/',
        '/healthz',
        '/readyz',
        '/metrics',
        '/openapi.json',
        '/nope',
        `/console/${bad}`,
        '/api/tools/x:y',
      ].map(async (path) => ({
        path,
        answer: await fetch(url + path, { headers: { accept: 'text/html' } }),
      })),
    );
    const posted = await fetch(`${url}/mcp`, { method: 'PUT' });
    for (const { path, answer } of [...answers, { path: 'PUT /mcp', answer: posted }]) {
      await answer.text();
      expect(answer.headers.get('x-content-type-options'), path).toBe('nosniff');
      if (/^text\/(plain|html)/.test(answer.headers.get('content-type') ?? '')) {
        expect(answer.headers.get('content-security-policy'), path).toBeTruthy();
      }
    }
    const metrics = answers.find((a) => a.path === '/metrics')?.answer;
    expect(metrics?.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(metrics?.headers.get('content-security-policy')).toBe(DEFAULT_PAGE_CSP);
  });
});
