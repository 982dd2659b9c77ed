import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from '@a2a-js/sdk';
import { LEGACY_HTTP_EXTENSION_HEADER } from '@a2a-js/sdk/compat/v0_3';
import {
  defaultServerCallContextBuilder,
  type ServerCallContext,
  UnauthenticatedUser,
} from '@a2a-js/sdk/server';
import type { Context } from 'hono';

/**
 * The SDK's per-call context for one HTTP request: requested protocol version (absent means
 * 0.3, per the spec), requested extensions, headers. Callers are unauthenticated until the
 * gateway's auth reaches this surface; every caller then shares one task namespace.
 */
export function callContext(c: Context, legacy: boolean): ServerCallContext {
  const extensions = legacy
    ? (c.req.header(LEGACY_HTTP_EXTENSION_HEADER) ?? c.req.header(HTTP_EXTENSION_HEADER))
    : c.req.header(HTTP_EXTENSION_HEADER);
  return defaultServerCallContextBuilder({
    extensions: Extensions.parseServiceParameter(extensions),
    user: new UnauthenticatedUser(),
    headers: c.req.header(),
    requestedVersion: normalizeVersion(c.req.header(A2A_VERSION_HEADER)),
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
