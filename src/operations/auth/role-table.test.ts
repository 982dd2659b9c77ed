import { describe, expect, it } from 'vitest';
import type { AuthIdentity } from './auth-identity.js';
import { Authenticator } from './authenticator.js';
import { identityClaims, rememberClaims } from './jwt-verifier.js';
import { RoleTable } from './role-table.js';

const ROLES = {
  viewer: { toolsets: ['time'] },
  editor: { toolsets: ['docs'] },
  operator: { admin: true },
  root: { toolsets: ['*'] },
};

function token(claims: Record<string, unknown>, extra: Partial<AuthIdentity> = {}): AuthIdentity {
  const identity: AuthIdentity = { identity: 'sub', method: 'jwt', ...extra };
  rememberClaims(identity, claims);
  return identity;
}

describe('RoleTable', () => {
  const table = new RoleTable(ROLES, 'roles');

  it('confines a token to the union of its roles toolsets and keeps its claims', () => {
    const applied = table.apply(token({ roles: ['viewer', 'editor', 'unknown'] }));
    expect(applied.roles).toEqual(['viewer', 'editor']);
    expect(applied.toolsets).toEqual(['time', 'docs']);
    expect(applied.admin).toBeUndefined();
    expect(identityClaims(applied)).toEqual({ roles: ['viewer', 'editor', 'unknown'] });
  });

  it('adds the token own grants, grants admin, and "*" unconfines', () => {
    expect(table.apply(token({ roles: 'viewer' }, { toolsets: ['docs'] })).toolsets).toEqual([
      'time',
      'docs',
    ]);
    const operator = table.apply(token({ roles: 'operator' }, { toolsets: ['docs'] }));
    expect(operator).toMatchObject({ admin: true, toolsets: ['docs'], roles: ['operator'] });
    expect(table.apply(token({ roles: 'root viewer' })).toolsets).toBeUndefined();
  });

  it('refuses a token naming no configured role (insufficient_scope)', () => {
    expect(() => table.apply(token({ roles: ['stranger'] }))).toThrow(/names no configured role/);
    expect(() => table.apply(token({}))).toThrow(expect.objectContaining({ code: 'forbidden' }));
  });

  it('leaves tokens alone without a roleClaim, and applies an API key its configured roles', async () => {
    expect(new RoleTable(ROLES, undefined).apply(token({ roles: ['viewer'] })).toolsets).toBeUndefined();
    const auth = new Authenticator({
      apiKeys: [{ name: 'ci', key: 'ci-key-0123456789abcdef', roles: ['viewer'] }],
      roles: ROLES,
    });
    const identity = await auth.authenticate({ apiKey: 'ci-key-0123456789abcdef' });
    expect(identity).toMatchObject({
      identity: 'ci',
      method: 'api_key',
      roles: ['viewer'],
      toolsets: ['time'],
    });
    // The same identity object each time: verifiers cache, and so do roles.
    expect(await auth.authenticate({ apiKey: 'ci-key-0123456789abcdef' })).toBe(identity);
  });
});
