import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_CSP, pagePolicy, setNosniff } from './security-headers.js';

describe('pagePolicy', () => {
  const app = new Hono();
  app.use('*', pagePolicy());
  app.get('/text', (c) => c.text('Login failed: <b>x</b>', 400));
  app.get('/html', (c) => c.html('<p>hi</p>'));
  app.get('/own', (c) =>
    c.body('<p>x</p>', 200, { 'content-type': 'text/html', 'content-security-policy': 'x' }),
  );
  app.get('/json', (c) => c.json({ a: 1 }));
  app.get('/redirect', () => Response.redirect('http://127.0.0.1/x', 302));
  app.post('/text', (c) => c.text('done'));

  it('gives text and HTML pages without a policy the restrictive one, and leaves the rest', async () => {
    expect((await app.request('/text')).headers.get('content-security-policy')).toBe(DEFAULT_PAGE_CSP);
    expect((await app.request('/html')).headers.get('content-security-policy')).toBe(DEFAULT_PAGE_CSP);
    expect((await app.request('/own')).headers.get('content-security-policy')).toBe('x');
    expect((await app.request('/json')).headers.get('content-security-policy')).toBeNull();
    expect((await app.request('/redirect')).status).toBe(302);
  });

  it("leaves a POST's answer as it is: no page a browser shows (form posts are refused before)", async () => {
    const answer = await app.request('/text', { method: 'POST' });
    expect(await answer.text()).toBe('done');
    expect(answer.headers.get('content-security-policy')).toBeNull();
  });

  it('setNosniff sets the header on a Node response', () => {
    const headers = new Map<string, string>();
    setNosniff({ setHeader: (name, value) => headers.set(name, value) });
    expect(headers.get('x-content-type-options')).toBe('nosniff');
  });
});
