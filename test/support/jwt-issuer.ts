import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

/** A token issuer for tests: a key pair, its JWKS served on 127.0.0.1, and a signer. */
export interface JwtIssuer extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` — also the `iss` of the tokens it signs. */
  issuer: string;
  jwksUrl: string;
  /** The public key as SPKI PEM (for `auth.jwt.publicKey`). */
  publicKeyPem: string;
  /** How many times the JWKS was fetched. */
  fetches(): number;
  /**
   * Signs a token: `sub` "alice", `iss` this issuer, `aud` "aperture", expiring in 5 minutes,
   * unless `claims`/`options` say otherwise (`expiresIn: -60` makes an expired token; a claim
   * given as `undefined`, such as `sub`, is left out of the token).
   */
  sign(
    claims?: { [K in keyof JWTPayload]?: JWTPayload[K] | undefined },
    options?: { expiresIn?: number; kid?: string },
  ): Promise<string>;
}

/** Starts an issuer; close it with `await using`. */
export async function startJwtIssuer(): Promise<JwtIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const server: Server = createServer((req, res) => {
    if (req.url === '/jwks.json') {
      fetches += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  return {
    issuer,
    jwksUrl: `${issuer}/jwks.json`,
    publicKeyPem: await exportSPKI(publicKey),
    fetches: () => fetches,
    async sign(claims = {}, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = Object.fromEntries(
        Object.entries({ sub: 'alice', iss: issuer, aud: 'aperture', ...claims }).filter(
          ([, v]) => v !== undefined,
        ),
      );
      return new SignJWT(payload)
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'test-key' })
        .setIssuedAt(now - 5)
        .setExpirationTime(now + (options.expiresIn ?? 300))
        .sign(privateKey);
    },
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
