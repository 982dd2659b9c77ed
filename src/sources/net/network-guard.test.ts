import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { HttpClient } from '../openapi/http-client.js';
import { isForbiddenAddress } from './forbidden-address.js';
import { NetworkGuard, type ResolveHost } from './network-guard.js';

/** A resolver over a fixed table: no network in these tests. */
function table(entries: Record<string, string[]>): ResolveHost {
  return async (hostname) => {
    const addresses = entries[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return error instanceof GatewayError ? error.code : `no GatewayError: ${String(error)}`;
}

describe('isForbiddenAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '[::1]',
    '::',
    'fc00::1',
    'fd00:ec2::254',
    'fe80::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '2002:0a00:0001::1',
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
  ])('allows public %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});

describe('NetworkGuard.check', () => {
  const resolveHost = table({
    'api.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    localhost: ['127.0.0.1', '::1'],
    'internal.example.com': ['10.1.2.3'],
    'mixed.example.com': ['93.184.216.34', '192.168.0.10'],
  });
  const guard = new NetworkGuard({ resolveHost });

  it.each([
    'http://127.0.0.1/x',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1:8080/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0x7f.1/',
    'http://2130706433/',
    'http://localhost:3000/',
    'https://internal.example.com/',
    'https://mixed.example.com/',
  ])('refuses %s without allowPrivateNetwork', async (url) => {
    expect(await codeOf(guard.check(url))).toBe('forbidden');
  });

  it('allows a host whose every address is public', async () => {
    await expect(guard.check('https://api.example.com/v1')).resolves.toBeUndefined();
  });

  it.each(['file:///etc/passwd', 'ftp://api.example.com/', 'gopher://127.0.0.1/', 'data:text/plain,hi'])(
    'refuses the scheme of %s, even with allowPrivateNetwork',
    async (url) => {
      expect(await codeOf(guard.check(url))).toBe('forbidden');
      expect(await codeOf(new NetworkGuard({ allowPrivateNetwork: true, resolveHost }).check(url))).toBe(
        'forbidden',
      );
    },
  );

  it('allows private addresses with allowPrivateNetwork, without resolving', async () => {
    const open = new NetworkGuard({
      allowPrivateNetwork: true,
      resolveHost: () => Promise.reject(new Error('must not resolve')),
    });
    await expect(open.check('http://169.254.169.254/')).resolves.toBeUndefined();
    await expect(open.check('http://localhost:8080/')).resolves.toBeUndefined();
    expect(open.dispatcher()).toBeUndefined();
  });

  it('reports a host that does not resolve as backend_unavailable', async () => {
    expect(await codeOf(guard.check('https://nowhere.example.com/'))).toBe('backend_unavailable');
  });
});

describe('NetworkGuard pinning (DNS rebinding)', () => {
  it('re-checks at connect time: a host that turns private after the check is refused', async () => {
    // First answer public (the pre-request check), then loopback (the connect): a rebinding attack.
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    let calls = 0;
    const resolveHost: ResolveHost = async () => {
      const next = answers[Math.min(calls++, answers.length - 1)] ?? [];
      return next.map((address) => ({ address, family: 4 }));
    };
    const guard = new NetworkGuard({ resolveHost });
    const client = new HttpClient({ guard, timeoutMs: 2000, maxResponseBytes: 1000 });
    const code = await codeOf(
      client.send({ url: new URL('http://rebind.example.com:8080/'), method: 'GET', headers: new Headers() }),
    );
    expect(code).toBe('forbidden');
    expect(calls).toBe(2);
    await guard.close();
  });

  it('refuses IP literals at connect time too (a redirect never passes through check())', async () => {
    const guard = new NetworkGuard({ resolveHost: table({}) });
    const dispatcher = guard.dispatcher();
    expect(dispatcher).toBeDefined();
    // `dispatcher` is undici's extension to RequestInit, added the way `guardedFetch` adds it.
    const init: RequestInit = {};
    Object.assign(init, { dispatcher });
    const error = await fetch('http://169.254.169.254/latest/meta-data/', init).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).cause).toBeInstanceOf(GatewayError);
    expect(((error as Error).cause as GatewayError).code).toBe('forbidden');
    await guard.close();
  });
});
