import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from '../../local/define-tool.js';
import { NetworkGuard } from '../../net/network-guard.js';
import { htmlToText } from './html-text.js';
import { stdFetchTool } from './std-fetch-tool.js';

const ctx = { signal: new AbortController().signal } as ToolContext;

describe('std:fetch', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/page') {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end(
          '<html><head><title>T &amp; co</title><script>evil()</script></head><body><p>Hello&nbsp;<b>world</b></p><ul><li>one</li></ul></body></html>',
        );
      } else if (req.url === '/big') {
        res.setHeader('content-type', 'text/plain');
        res.end('x'.repeat(5000));
      } else if (req.url === '/binary') {
        res.setHeader('content-type', 'application/octet-stream');
        res.end(Buffer.alloc(10));
      } else if (req.url === '/hop') {
        res.statusCode = 302;
        res.setHeader('location', 'http://169.254.169.254/latest/meta-data');
        res.end();
      } else {
        res.setHeader('content-type', 'application/ld+json');
        res.end('{"a":1}');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const run = (options: Parameters<typeof stdFetchTool>[0], args: Record<string, unknown>) =>
    Promise.resolve(stdFetchTool(options).handler(args, ctx)) as Promise<Record<string, unknown>>;

  it('refuses a loopback address by default, and private addresses a redirect leads to', async () => {
    await expect(run({}, { url: `${base}/page` })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(run({}, { url: 'http://localhost:1/' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(run({}, { url: 'file:///etc/passwd' })).rejects.toMatchObject({ code: 'forbidden' });
    // A name resolving to a private address is refused the same way (the guard resolves it).
    const guard = new NetworkGuard({ resolveHost: async () => [{ address: '10.0.0.7', family: 4 }] });
    await expect(run({ guard }, { url: 'http://intranet.test/' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    // Every redirect hop is held to the allow list as well.
    await expect(
      run({ allowPrivateNetwork: true, allow: ['127.0.0.1'] }, { url: `${base}/hop` }),
    ).rejects.toMatchObject({ code: 'forbidden', message: /169\.254\.169\.254/ });
  });

  it('turns HTML into text, keeps JSON, caps the size and refuses other content types', async () => {
    const open = { allowPrivateNetwork: true };
    const page = await run(open, { url: `${base}/page` });
    expect(page).toMatchObject({ status: 200, contentType: 'text/html', truncated: false });
    expect(page.text).toBe('T & co\n\nHello world\n\n- one');
    expect((await run(open, { url: `${base}/page`, raw: true })).text).toContain('<b>world</b>');
    expect((await run(open, { url: `${base}/json` })).text).toBe('{"a":1}');
    const big = await run({ ...open, maxBytes: 100 }, { url: `${base}/big` });
    expect(big).toMatchObject({ truncated: true });
    expect(String(big.text)).toHaveLength(100);
    await expect(run(open, { url: `${base}/binary` })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(run(open, { url: 'not a url' })).rejects.toMatchObject({ code: 'validation_input' });
  });

  it('keeps to the host allow list', async () => {
    await expect(
      run({ allowPrivateNetwork: true, allow: ['example.com'] }, { url: `${base}/page` }),
    ).rejects.toMatchObject({ code: 'forbidden', message: /not in tools.standard.fetch.allow/ });
    expect(
      (await run({ allowPrivateNetwork: true, allow: ['127.0.0.1'] }, { url: `${base}/json` })).status,
    ).toBe(200);
  });

  it('htmlToText decodes entities and drops styles and comments', () => {
    expect(htmlToText('<style>p{}</style><!-- c --><h1>A&#39;s &#x41;</h1>text')).toBe("A's A\ntext");
  });
});
