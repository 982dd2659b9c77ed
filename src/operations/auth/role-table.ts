import { authFailure } from './auth-failure.js';
import type { AuthIdentity } from './auth-identity.js';
import { identityClaims, rememberClaims } from './jwt-verifier.js';
import { claimValue, namesOf } from './token-claims.js';

/** One role of `auth.roles`: what holding it grants. */
export interface RoleGrant {
  /** Toolsets the role grants (`"*"`: all). Absent: the role grants no toolset (a label for policies). */
  toolsets?: readonly string[] | undefined;
  /** Holders are administrators. */
  admin?: boolean | undefined;
}

/**
 * The roles of `auth.roles`, applied to verified identities. A caller holds roles from its API key
 * (`auth.apiKeys[].roles`) or from a token claim (`auth.roleClaim`, JWT or introspection). Holding
 * roles:
 * - names them in `caller.roles` (policy rules read it);
 * - confines the caller when any held role lists `toolsets`: to the union of those and the
 *   caller's own grants (a key's `toolsets`, a token's toolsets claim); a role listing `"*"` leaves
 *   it unconfined. Roles without `toolsets` change no confinement;
 * - makes the caller an administrator when any held role says `admin: true`.
 * Unknown role names in a claim are ignored (an identity provider's roles are not all the gateway's).
 */
export class RoleTable {
  /** Identity before roles → identity with roles: verifiers reuse identities, so this does too. */
  private readonly applied = new WeakMap<AuthIdentity, AuthIdentity>();

  constructor(
    private readonly roles: Readonly<Record<string, RoleGrant>>,
    private readonly roleClaim: string | undefined,
  ) {}

  /** Whether roles are in play at all. */
  get enabled(): boolean {
    return Object.keys(this.roles).length > 0;
  }

  /**
   * `identity` with the roles it holds applied. An API key's identity carries its configured
   * `roles` already; a token's come from `roleClaim`. With `roleClaim` set, a token naming no configured role
   * is refused (`forbidden`, `insufficient_scope`): a claim-driven deployment grants only by role.
   */
  apply(identity: AuthIdentity): AuthIdentity {
    const done = this.applied.get(identity);
    if (done) return done;
    const held = this.heldRoles(identity);
    if (held === undefined) return identity;
    const result: AuthIdentity = { ...identity, roles: Object.freeze(held) };
    const grants = held.map((name) => this.roles[name] as RoleGrant);
    const listed = grants.filter((grant) => grant.toolsets !== undefined);
    if (listed.length > 0) {
      const union = new Set(listed.flatMap((grant) => grant.toolsets ?? []));
      for (const own of identity.toolsets ?? []) union.add(own);
      if (union.has('*')) delete result.toolsets;
      else result.toolsets = Object.freeze([...union]);
    }
    if (grants.some((grant) => grant.admin === true)) result.admin = true;
    const claims = identityClaims(identity);
    if (claims !== undefined) rememberClaims(result, claims);
    this.applied.set(identity, Object.freeze(result));
    return result;
  }

  /** The configured roles `identity` holds; undefined when roles do not apply to it. */
  private heldRoles(identity: AuthIdentity): string[] | undefined {
    if (identity.method === 'api_key') {
      if (identity.roles === undefined || identity.roles.length === 0) return undefined;
      return identity.roles.filter((name) => Object.hasOwn(this.roles, name));
    }
    const claim = this.roleClaim;
    if (claim === undefined) return undefined;
    const claims = identityClaims(identity) ?? {};
    const named = namesOf(claimValue(claims, claim)) ?? [];
    const held = [...new Set(named)].filter((name) => Object.hasOwn(this.roles, name));
    if (held.length === 0) {
      throw authFailure(
        'forbidden',
        'insufficient_scope',
        `The token's "${claim}" claim names no configured role (configured: ${Object.keys(this.roles).join(', ') || 'none'})`,
      );
    }
    return held;
  }
}
