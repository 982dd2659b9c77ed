import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import {
  defaultServerCallContextBuilder,
  type ServerCallContext,
  UnauthenticatedUser,
  type User,
} from '@a2a-js/sdk/server';
import type { Context } from 'hono';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';

/**
 * An authenticated A2A caller, as the SDK sees it: its user name scopes tasks (another identity
 * cannot get or cancel them), and the executor runs its tasks with its caller and scope.
 */
export class CallerUser implements User {
  constructor(
    readonly caller: CallerContext,
    readonly scope: ToolScope,
  ) {}

  get isAuthenticated(): boolean {
    return true;
  }

  /** Method and identity: an API key and a JWT subject of the same name are different owners. */
  get userName(): string {
    return `${this.caller.authMethod ?? 'none'}:${this.caller.identity}`;
  }
}

/**
 * The SDK's per-call context for one HTTP request: requested protocol version (absent means
 * 0.3, per the spec), requested extensions, headers, and the caller (`user`; without auth every
 * caller is the one unauthenticated user and shares one task namespace).
 */
export function callContext(c: Context, legacy: boolean, user?: User): ServerCallContext {
  const extensions = legacy
    ? (c.req.header(LEGACY_HTTP_EXTENSION_HEADER) ?? c.req.header(HTTP_EXTENSION_HEADER))
    : c.req.header(HTTP_EXTENSION_HEADER);
  const requestedVersion = normalizeVersion(c.req.header(A2A_VERSION_HEADER));
  return defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(extensions),
    user: user ?? new UnauthenticatedUser(),
    headers: c.req.header(),
    ...(requestedVersion === undefined ? {} : { requestedVersion }),
  });
}

/**
 * `1.0.0` → `1.0`, `0.3.0` → `0.3`: the SDK matches versions exactly against the card's
 * `Major.Minor` entries, and some clients send the full semantic version.
 */
function normalizeVersion(header: string | undefined): string | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(value);
  return match ? `${match[1]}.${match[2]}` : value;
}

/** Response headers naming the extensions the call activated, in the version's spelling. */
export function extensionHeaders(context: ServerCallContext, legacy: boolean): Record<string, string> {
  const activated = context.activatedExtensions;
  if (!activated || activated.length === 0) return {};
  const name = legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER;
  return { [name]: Extensions.toServiceParameter(activated) };
}
