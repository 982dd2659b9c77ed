import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { hostGuard, isLoopback } from './host-guard.js';

function guarded(options: Parameters<typeof hostGuard>[0]): Hono {
  const app = new Hono();
  app.use('*', hostGuard(options));
  app.all('*', (c) => c.text('ran'));
  return app;
}

async function status(app: Hono, headers: Record<string, string>): Promise<number> {
  const response = await app.request('http://127.0.0.1/mcp', { method: 'POST', headers });
  return response.status;
}

describe('isLoopback', () => {
  it.each([
    'localhost',
    'LOCALHOST',
    '127.0.0.1',
    '127.255.3.4',
    '::1',
    '[::1]',
    '[0:0:0:0:0:0:0:1]',
    '::ffff:127.0.0.1',
  ])('%s is loopback', (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  it.each([
    '127.0.0.1.evil.example',
    '127.evil.example',
    '127.0.0.1.nip.io',
    'localhost.evil.example',
    'evil.localhost',
    '128.0.0.1',
    '0.0.0.0',
    '::',
    '[::2]',
    '::ffff:10.0.0.1',
    '',
  ])('%s is not loopback (DNS can point it anywhere)', (host) => {
    expect(isLoopback(host)).toBe(false);
  });
});

describe('hostGuard on a loopback bind (DNS rebinding)', () => {
  const app = guarded({ bindHost: '127.0.0.1' });

  it('refuses a Host that only starts with 127. (regression: 127.0.0.1.evil.example ran every tool)', async () => {
    expect(await status(app, { host: '127.0.0.1.evil.example' })).toBe(403);
    expect(await status(app, { host: '127.0.0.1.evil.example:8080' })).toBe(403);
    expect(
      await status(app, { host: '127.0.0.1.evil.example', origin: 'http://127.0.0.1.evil.example' }),
    ).toBe(403);
  });

  it('refuses Host headers a URL parser would read differently than DNS', async () => {
    for (const host of [
      'evil.example@127.0.0.1',
      '127.0.0.1/evil',
      '127.0.0.1 evil',
      '127.0.0.1:99999x',
      '',
    ]) {
      expect(await status(app, { host }), host).toBe(403);
    }
  });

  it('accepts loopback literals and localhost, with any port', async () => {
    for (const host of [
      '127.0.0.1',
      '127.0.0.1:4000',
      '127.8.9.10:1',
      'localhost:80',
      '[::1]:4000',
      'LocalHost',
    ]) {
      expect(await status(app, { host }), host).toBe(200);
    }
  });

  it('checks Origin the same strict way', async () => {
    const host = '127.0.0.1:4000';
    expect(await status(app, { host, origin: 'http://127.0.0.1.evil.example' })).toBe(403);
    expect(await status(app, { host, origin: 'http://127.0.0.1.evil.example:4000' })).toBe(403);
    expect(await status(app, { host, origin: 'http://127.0.0.1@evil.example' })).toBe(403);
    expect(await status(app, { host, origin: 'https://evil.example' })).toBe(403);
    expect(await status(app, { host, origin: 'null' })).toBe(403);
    expect(await status(app, { host, origin: 'file://' })).toBe(403);
    expect(await status(app, { host, origin: 'http://localhost:3000' })).toBe(200);
    expect(await status(app, { host, origin: 'http://[::1]:3000' })).toBe(200);
  });

  it('lets origins of the CORS allow-list through', async () => {
    const cors = guarded({ bindHost: '127.0.0.1', allowedOrigins: ['https://app.example.com'] });
    expect(await status(cors, { host: '127.0.0.1', origin: 'https://app.example.com' })).toBe(200);
    expect(await status(cors, { host: '127.0.0.1', origin: 'https://other.example.com' })).toBe(403);
  });

  it('accepts the host names of http.allowedHosts (Host and Origin), nothing like them', async () => {
    const named = guarded({ bindHost: '127.0.0.1', allowedHosts: ['Aperture.internal'] });
    expect(await status(named, { host: 'aperture.internal:8080', origin: 'https://aperture.internal' })).toBe(
      200,
    );
    expect(await status(named, { host: 'aperture.internal.evil.example' })).toBe(403);
    expect(await status(named, { host: 'evil.aperture.internal' })).toBe(403);
  });
});

describe('hostGuard on other binds', () => {
  it('is off without allowedHosts (auth protects exposed gateways)', async () => {
    expect(await status(guarded({ bindHost: '0.0.0.0' }), { host: 'anything.example' })).toBe(200);
  });

  it('with allowedHosts, accepts those names and IP literals only', async () => {
    const app = guarded({ bindHost: '0.0.0.0', allowedHosts: ['gw.example.com'] });
    expect(await status(app, { host: 'gw.example.com' })).toBe(200);
    expect(await status(app, { host: '10.1.2.3:4000' })).toBe(200);
    expect(await status(app, { host: 'rebound.evil.example' })).toBe(403);
  });
});
