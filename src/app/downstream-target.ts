import type { ServerConfig } from '../config/config-schema.js';
import type { DownstreamTarget } from '../sources/mcp/open-connection.js';
import { serverTarget } from '../sources/mcp/server-target.js';
import type { OAuthSupport } from './oauth-support.js';

/**
 * A server entry as a connection target (`serverTarget`), with the token provider of a server
 * with an `oauth` block: `name` and `oauth` give it its provider (tokens from the store).
 */
export function downstreamTarget(
  entry: ServerConfig,
  baseDir: string,
  oauth?: { name: string; support: OAuthSupport },
): DownstreamTarget {
  const authProvider =
    entry.kind === 'remote' && entry.oauth ? oauth?.support.provider(oauth.name) : undefined;
  return serverTarget(entry, baseDir, authProvider);
}
