import type { AuthMethod } from '../../foundation/ports/tool-backend.js';

/** A caller whose credentials were verified. */
export interface AuthIdentity {
  /** API key name or JWT subject. */
  identity: string;
  method: AuthMethod;
  /** Toolsets granted; absent: unconfined. */
  toolsets?: readonly string[];
  /** An administrator: may read operational data of the whole gateway (metrics). */
  admin?: boolean;
  /** The `auth.roles` held (an API key's configured roles, or those a token's role claim names). */
  roles?: readonly string[];
}

/** Why a request was refused by authentication (the `reason` in a GatewayError's details). */
export type AuthFailureReason =
  /** No credentials were sent: 401 without an error code (RFC 6750 §3.1). */
  | 'missing'
  /** Credentials were sent and are not valid: 401 `error="invalid_token"`. */
  | 'invalid_token'
  /** Valid credentials that grant nothing usable: 403 `error="insufficient_scope"`. */
  | 'insufficient_scope';
