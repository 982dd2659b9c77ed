import { resolve } from 'node:path';
import type { ServerConfig } from '../config/config-schema.js';
import type { DownstreamTarget } from '../sources/mcp/open-connection.js';
import type { OAuthSupport } from './oauth-support.js';

/**
 * A server entry as a connection target; a relative `cwd` is taken from the config file's folder.
 * `name` and `oauth` give a server with an `oauth` block its provider (tokens from the store).
 */
export function downstreamTarget(
  entry: ServerConfig,
  baseDir: string,
  oauth?: { name: string; support: OAuthSupport },
): DownstreamTarget {
  if (entry.kind === 'remote') {
    const authProvider = entry.oauth ? oauth?.support.provider(oauth.name) : undefined;
    return {
      kind: 'remote',
      url: entry.url,
      transport: entry.transport,
      headers: entry.headers,
      ...(authProvider ? { authProvider } : {}),
    };
  }
  const cwd = entry.cwd === undefined ? undefined : resolve(baseDir, entry.cwd);
  return {
    kind: 'stdio',
    command: entry.command,
    args: entry.args,
    env: entry.env,
    ...(cwd === undefined ? {} : { cwd }),
  };
}
