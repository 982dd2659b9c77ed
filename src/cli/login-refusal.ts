import type { ApertureConfig } from '../config/config-schema.js';
import { GatewayError } from '../foundation/model/gateway-error.js';

/** Looks for a server's OAuth protected-resource metadata; resolves to its URL when found. */
export type ProtectedResourceProbe = (serverUrl: string) => Promise<string | undefined>;

/** How long the probe waits for each metadata URL. */
const PROBE_TIMEOUT_MS = 5000;

/**
 * The RFC 9728 metadata URLs of a resource, most specific first: the well-known path with the
 * resource's path appended (`/.well-known/oauth-protected-resource/mcp`), then the root one.
 */
export function protectedResourceMetadataUrls(serverUrl: string): string[] {
  const url = new URL(serverUrl);
  const base = `${url.origin}/.well-known/oauth-protected-resource`;
  const path = url.pathname.replace(/\/$/, '');
  return path === '' ? [base] : [`${base}${path}`, base];
}

/**
 * Asks the server whether it announces OAuth (protected-resource metadata), without registering
 * or logging in: a GET of each metadata URL, an answer that is a JSON object naming
 * `authorization_servers` counting as yes.
 */
export const probeProtectedResource: ProtectedResourceProbe = async (serverUrl) => {
  for (const url of protectedResourceMetadataUrls(serverUrl)) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), redirect: 'error' });
      if (!response.ok) continue;
      const body = (await response.json()) as { authorization_servers?: unknown };
      if (Array.isArray(body.authorization_servers) && body.authorization_servers.length > 0) return url;
    } catch {
      // Unreachable, not JSON, a redirect: no metadata there.
    }
  }
  return undefined;
};

/**
 * The error of `aperture login SERVER` when SERVER is not one to log in to. A server of the
 * config without an `oauth` block is told apart from an unknown name: a stdio server has no OAuth;
 * a remote one is asked (its protected-resource metadata, nothing more — no client registration)
 * whether it announces OAuth, so the message says either "add `oauth: {}`" or "it does not use
 * OAuth".
 */
export async function loginRefusal(
  server: string,
  config: ApertureConfig,
  oauthNames: readonly string[],
  probe: ProtectedResourceProbe = probeProtectedResource,
): Promise<GatewayError> {
  const entry = Object.hasOwn(config.servers, server) ? config.servers[server] : undefined;
  const names = oauthNames.length === 0 ? 'no server of the config uses OAuth' : oauthNames.join(', ');
  if (entry === undefined) {
    return new GatewayError('invalid_request', `"${server}" is not a server with oauth (${names})`);
  }
  if (entry.kind !== 'remote') {
    return new GatewayError(
      'invalid_request',
      `server "${server}" does not use OAuth: it is a stdio server (OAuth is for remote servers; pass its credentials in env)`,
    );
  }
  const metadata = await probe(entry.url);
  return new GatewayError(
    'invalid_request',
    metadata === undefined
      ? `server "${server}" does not use OAuth: its config has no "oauth" block, and it announces none (no protected-resource metadata)`
      : `server "${server}" has no "oauth" block in the config, but it announces OAuth (${metadata}); add \`oauth: {}\` to its entry, then log in`,
  );
}
