import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure } from '../../../test/support/expect-failure.js';
import { type JwtIssuer, startJwtIssuer } from '../../../test/support/jwt-issuer.js';
import { JwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js';

let issuer: JwtIssuer;
beforeAll(async () => {
  issuer = await startJwtIssuer();
});
afterAll(async () => {
  await issuer[Symbol.asyncDispose]();
});

function verifier(options: Partial<JwtVerifierOptions> = {}): JwtVerifier {
  return new JwtVerifier({
    jwksUrl: issuer.jwksUrl,
    issuer: issuer.issuer,
    audience: 'aperture',
    ...options,
  });
}

describe('JwtVerifier', () => {
  it('accepts a valid token from the JWKS: the subject is the identity, unconfined without a toolsets claim', async () => {
    await expect(verifier().verify(await issuer.sign())).resolves.toEqual({
      identity: 'alice',
      method: 'jwt',
    });
    expect(issuer.fetches()).toBeGreaterThan(0);
  });

  it('accepts a token verified with a fixed public key (PEM)', async () => {
    const v = verifier({ jwksUrl: undefined, publicKey: issuer.publicKeyPem });
    await expect(v.verify(await issuer.sign({ sub: 'bob' }))).resolves.toMatchObject({ identity: 'bob' });
  });

  it.each([
    ['expired', () => issuer.sign({}, { expiresIn: -120 }), 'The token has expired'],
    [
      'wrong issuer',
      () => issuer.sign({ iss: 'https://evil.example' }),
      'The token\'s "iss" claim is not accepted',
    ],
    ['wrong audience', () => issuer.sign({ aud: 'other' }), 'The token\'s "aud" claim is not accepted'],
    ['unknown key id', () => issuer.sign({}, { kid: 'rotated-away' }), 'No signing key matches the token'],
    ['no subject', () => issuer.sign({ sub: undefined }), 'The token has no "sub" claim'],
  ])('refuses a token with %s as unauthorized/invalid_token', async (_what, make, message) => {
    const error = await failure(verifier().verify(await make()));
    expect(error.code).toBe('unauthorized');
    expect(error.details).toEqual({ reason: 'invalid_token' });
    expect(error.message).toContain(message);
  });

  it('refuses a tampered signature and garbage', async () => {
    const token = await issuer.sign();
    const [header, payload] = token.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: 'root', iss: issuer.issuer, aud: 'aperture', exp: 9e9 })).toString('base64url')}.${token.split('.')[2]}`;
    expect(payload).toBeDefined();
    expect((await failure(verifier().verify(forged))).message).toBe('The token signature is not valid');
    expect((await failure(verifier().verify('a.b.c'))).code).toBe('unauthorized');
  });

  it('marks an administrator by the adminClaim: true, or a role list / string naming "admin"; nothing else', async () => {
    const v = verifier({ adminClaim: 'aperture.roles' });
    for (const roles of [true, ['viewer', 'admin'], 'viewer admin']) {
      await expect(
        v.verify(await issuer.sign({ aperture: { roles } })),
        JSON.stringify(roles),
      ).resolves.toEqual({
        identity: 'alice',
        method: 'jwt',
        admin: true,
      });
    }
    for (const roles of [false, ['viewer'], 'administrator', 'true', 1]) {
      const identity = await v.verify(await issuer.sign({ aperture: { roles } }));
      expect(identity.admin, JSON.stringify(roles)).toBeUndefined();
    }
    // No claim: an ordinary caller, not a refusal (the claim only grants, unlike toolsetsClaim).
    expect((await v.verify(await issuer.sign())).admin).toBeUndefined();
    // Without adminClaim a token cannot make itself an administrator.
    expect((await verifier().verify(await issuer.sign({ admin: true }))).admin).toBeUndefined();
  });

  it('reads the toolsets claim: a list, a space-separated string, a dotted path, "*" for all', async () => {
    const v = verifier({ toolsetsClaim: 'toolsets' });
    await expect(v.verify(await issuer.sign({ toolsets: ['time', 'docs'] }))).resolves.toEqual({
      identity: 'alice',
      method: 'jwt',
      toolsets: ['time', 'docs'],
    });
    await expect(v.verify(await issuer.sign({ toolsets: 'time docs' }))).resolves.toMatchObject({
      toolsets: ['time', 'docs'],
    });
    await expect(v.verify(await issuer.sign({ toolsets: ['*'] }))).resolves.toEqual({
      identity: 'alice',
      method: 'jwt',
    });
    const nested = verifier({ toolsetsClaim: 'aperture.toolsets' });
    await expect(
      nested.verify(await issuer.sign({ aperture: { toolsets: ['time'] } })),
    ).resolves.toMatchObject({
      toolsets: ['time'],
    });
  });

  it('a token without the configured toolsets claim grants nothing: forbidden/insufficient_scope', async () => {
    const error = await failure(verifier({ toolsetsClaim: 'toolsets' }).verify(await issuer.sign()));
    expect(error.code).toBe('forbidden');
    expect(error.details).toEqual({ reason: 'insufficient_scope' });
    const malformed = await failure(
      verifier({ toolsetsClaim: 'toolsets' }).verify(await issuer.sign({ toolsets: 7 })),
    );
    expect(malformed.code).toBe('unauthorized');
  });

  it('remembers a verified token until it expires, and not past it', async () => {
    const v = verifier({ clockToleranceSec: 0 });
    const token = await issuer.sign({}, { expiresIn: 3 });
    const first = await v.verify(token);
    expect(await v.verify(token)).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 3100));
    expect((await failure(v.verify(token))).message).toBe('The token has expired');
    const uncached = verifier({ cacheSize: 0 });
    const other = await issuer.sign();
    expect(await uncached.verify(other)).not.toBe(await uncached.verify(other));
  });

  it("an unreachable JWKS is backend_unavailable, not the token's fault", async () => {
    const v = verifier({ jwksUrl: 'http://127.0.0.1:9/jwks.json', jwksTimeoutMs: 1000 });
    const error = await failure(v.verify(await issuer.sign()));
    expect(error.code).toBe('backend_unavailable');
  });

  it('refuses options with both or neither key source, and an unusable public key (config_invalid)', () => {
    expect(() => verifier({ publicKey: issuer.publicKeyPem })).toThrow(
      /exactly one of "jwksUrl" and "publicKey"/,
    );
    expect(() => verifier({ jwksUrl: undefined, publicKey: 'not a key' })).toThrow(
      /auth\.jwt\.publicKey: not a usable public key/,
    );
  });
});
