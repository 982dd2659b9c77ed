import { authFailure } from './auth-failure.js';

/*
 * Reading grants out of a token's claims — a verified JWT's payload or an RFC 7662 introspection
 * response alike, so both kinds of token grant the same way.
 */

/** `claim` as a top-level claim (names may contain dots, e.g. URLs), else as a dotted path. */
export function claimValue(payload: Readonly<Record<string, unknown>>, claim: string): unknown {
  if (Object.hasOwn(payload, claim)) return payload[claim];
  let value: unknown = payload;
  for (const part of claim.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The names a claim value lists (an array of strings or a space/comma-separated string); undefined otherwise. */
export function namesOf(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter(Boolean);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return [...(value as string[])];
  return undefined;
}

/** The toolsets a claim grants: names, or `"*"` for all. Throws `forbidden` when it is absent. */
export function toolsetsOf(payload: Readonly<Record<string, unknown>>, claim: string): string[] | '*' {
  const value = claimValue(payload, claim);
  if (value === undefined || value === null) {
    throw authFailure(
      'forbidden',
      'insufficient_scope',
      `The token has no "${claim}" claim, so it grants no toolset`,
    );
  }
  const names = namesOf(value);
  if (names === undefined) {
    throw authFailure(
      'unauthorized',
      'invalid_token',
      `The token's "${claim}" claim must be a list of toolset names`,
    );
  }
  return names.includes('*') ? '*' : names;
}

/**
 * Whether an admin claim's value grants administration: exactly `true`, or roles naming `admin`.
 * Anything else (a missing claim, `"true"`, `1`) does not: a claim only ever grants on purpose.
 */
export function isAdminValue(value: unknown): boolean {
  if (value === true) return true;
  if (typeof value === 'string') return value.split(/[\s,]+/).includes('admin');
  return Array.isArray(value) && value.includes('admin');
}
