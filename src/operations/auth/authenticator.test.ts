import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JwtIssuer, startJwtIssuer } from '../../../test/support/jwt-issuer.js';
import { Authenticator } from './authenticator.js';

let issuer: JwtIssuer;
beforeAll(async () => {
  issuer = await startJwtIssuer();
});
afterAll(async () => {
  await issuer[Symbol.asyncDispose]();
});

const KEY = 'ci-key-0123456789abcdef';

function authenticator(jwt = true): Authenticator {
  return new Authenticator({
    apiKeys: [{ name: 'ci', key: KEY, toolsets: ['time'] }],
    ...(jwt ? { jwt: { jwksUrl: issuer.jwksUrl, issuer: issuer.issuer, audience: 'aperture' } } : {}),
  });
}

describe('Authenticator', () => {
  it('is enabled only when keys or a JWT issuer are configured', () => {
    expect(new Authenticator({}).enabled).toBe(false);
    expect(authenticator(false).enabled).toBe(true);
  });

  it('accepts an API key as a bearer token or in X-API-Key', async () => {
    const expected = { identity: 'ci', method: 'api_key', toolsets: ['time'] };
    await expect(authenticator().authenticate({ authorization: `Bearer ${KEY}` })).resolves.toEqual(expected);
    await expect(authenticator().authenticate({ authorization: `bearer  ${KEY} ` })).resolves.toEqual(
      expected,
    );
    await expect(authenticator().authenticate({ apiKey: KEY })).resolves.toEqual(expected);
  });

  it('accepts a JWT as a bearer token', async () => {
    await expect(
      authenticator().authenticate({ authorization: `Bearer ${await issuer.sign()}` }),
    ).resolves.toEqual({
      identity: 'alice',
      method: 'jwt',
    });
  });

  it.each([
    [{}, 'missing', /^Credentials required/],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, 'missing', /Unsupported Authorization scheme "Basic"/],
    [{ authorization: 'Bearer' }, 'invalid_token', /empty/],
    [{ authorization: 'Bearer wrong-key-0123456789' }, 'invalid_token', /bearer token is not valid/],
    [{ apiKey: 'wrong' }, 'invalid_token', /API key is not valid/],
  ])('refuses %j as unauthorized (%s)', async (credentials, reason, message) => {
    const outcome = authenticator().authenticate(credentials);
    await expect(outcome).rejects.toMatchObject({ code: 'unauthorized', details: { reason } });
    await expect(outcome).rejects.toThrow(message);
  });

  it('does not treat a JWT-shaped token as a JWT when no issuer is configured', async () => {
    await expect(
      authenticator(false).authenticate({ authorization: `Bearer ${await issuer.sign()}` }),
    ).rejects.toMatchObject({ code: 'unauthorized', details: { reason: 'invalid_token' } });
  });

  it('reads Authorization before X-API-Key: a bad bearer token is not rescued by a good key', async () => {
    await expect(
      authenticator().authenticate({ authorization: 'Bearer nope-nope-nope-nope', apiKey: KEY }),
    ).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
