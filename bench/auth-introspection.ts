#!/usr/bin/env node
/**
 * What authenticating one request costs, per credential kind: `Authenticator.authenticate` in
 * process (no HTTP in front of it), side by side in one run.
 *
 * Variants:
 *   apikey        an API key (SHA-256 + constant-time comparison against 10 keys)
 *   jwt           a JWT (ES256, fixed public key), answered from the verifier's cache
 *   jwt-verify    the same JWT verified every time (cache off): the signature check
 *   intro         an opaque token, answered from the introspection cache (`cacheMs` 60 s)
 *   intro-http    the same token asked every time (`cacheMs: 0`) of an RFC 7662 endpoint on
 *                 127.0.0.1 (a plain node:http server answering a fixed JSON): one HTTP round trip
 *   intro-roles   as `intro`, with `auth.roles` and a role claim applied
 *
 * Options (argv `--name value`, or env `BENCH_NAME`): auth-n (20000 per variant; intro-http
 * makes n/20), auth-warmup (1000), auth-block (500). Prints a Markdown section on stdout.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import { Authenticator } from '../src/operations/auth/authenticator.js';
import { interleavedRounds, machine, ms, option, runIfMain, summarize, table } from './lib/common.js';

export async function runAuthIntrospection() {
  const n = option('auth-n', 20_000);
  const warmup = option('auth-warmup', 1000);
  const blockSize = option('auth-block', 500);
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const jwt = await new SignJWT({ sub: 'bench' })
    .setProtectedHeader({ alg: 'ES256' })
    .setIssuer('https://idp.bench')
    .setAudience('aperture')
    .setExpirationTime(exp)
    .sign(privateKey);
  const answer = JSON.stringify({ active: true, sub: 'bench', exp, roles: ['reader'] });
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/introspect`;
  const keys = Array.from({ length: 10 }, (_, i) => ({
    name: `k${i}`,
    key: `bench-key-${i}-0123456789abcdef`,
  }));
  const jwtOptions = {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    issuer: 'https://idp.bench',
    audience: 'aperture',
  };
  const introspection = { url, clientId: 'gw', clientSecret: 'secret' };
  const made: Record<string, { auth: Authenticator; token: string; n: number }> = {
    apikey: { auth: new Authenticator({ apiKeys: keys }), token: keys[9]!.key, n },
    jwt: { auth: new Authenticator({ jwt: jwtOptions }), token: jwt, n },
    'jwt-verify': { auth: new Authenticator({ jwt: { ...jwtOptions, cacheSize: 0 } }), token: jwt, n },
    intro: {
      auth: new Authenticator({ introspection: { ...introspection, cacheMs: 60_000 } }),
      token: 'opaque-bench',
      n,
    },
    'intro-http': {
      auth: new Authenticator({ introspection: { ...introspection, cacheMs: 0 } }),
      token: 'opaque-bench',
      n: Math.max(100, Math.floor(n / 20)),
    },
    'intro-roles': {
      auth: new Authenticator({
        introspection: { ...introspection, cacheMs: 60_000 },
        roles: { reader: { toolsets: ['docs'] } },
        roleClaim: 'roles',
      }),
      token: 'opaque-bench',
      n,
    },
  };
  for (const variant of Object.values(made))
    await variant.auth.authenticate({ authorization: `Bearer ${variant.token}` });
  const samples: Record<string, number[]> = {};
  // intro-http is measured on fewer calls (a round trip each); the others all get `n`.
  for (const group of [Object.keys(made).filter((k) => k !== 'intro-http'), ['intro-http', 'intro']]) {
    const groupN = Math.min(...group.map((key) => made[key]!.n));
    const result = await interleavedRounds(
      group.map((key) => ({ key })),
      {
        n: groupN,
        warmup: Math.min(warmup, groupN),
        blockSize: Math.min(blockSize, groupN),
        block: async (variant, count, into) => {
          const { auth, token } = made[variant.key]!;
          const credentials = { authorization: `Bearer ${token}` };
          for (let i = 0; i < count; i++) {
            const started = performance.now();
            await auth.authenticate(credentials);
            into?.push(performance.now() - started);
          }
        },
      },
    );
    for (const [key, list] of Object.entries(result.samples)) if (!samples[key]) samples[key] = list;
  }
  server.close();
  const summaries = Object.fromEntries(Object.entries(samples).map(([key, s]) => [key, summarize(s)]));
  return { machine: machine(), n, summaries };
}

export function renderAuthIntrospection(results: Awaited<ReturnType<typeof runAuthIntrospection>>): string {
  const labels: Record<string, string> = {
    apikey: 'API key (10 configured)',
    jwt: 'JWT, verifier cache hit',
    'jwt-verify': 'JWT, signature verified every call (ES256)',
    intro: 'opaque token, introspection cache hit',
    'intro-roles': 'opaque token, cache hit, roles applied',
    'intro-http': 'opaque token, introspected every call (loopback HTTP)',
  };
  const jwtP50 = results.summaries.jwt?.p50 ?? Number.NaN;
  return [
    `### Authentication per request (${results.n} calls per variant, side by side; intro-http fewer)`,
    '',
    table(
      ['credential', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'p50 ÷ cached JWT p50'],
      Object.entries(results.summaries).map(([key, s]) => [
        labels[key] ?? key,
        s.n,
        ms(s.p50, 4),
        ms(s.p95, 4),
        ms(s.p99, 4),
        (s.p50 / jwtP50).toFixed(2),
      ]),
    ),
  ].join('\n');
}

runIfMain(import.meta.url, runAuthIntrospection, renderAuthIntrospection);
