import { resolve } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { type SandboxContext, serverSandboxPlan } from '../sandbox/server-sandbox.js';
import type { DownstreamTarget } from './open-connection.js';
import type { PackageCache } from './package-cache.js';
import type { ServerConfig } from './server-entry-schema.js';

/**
 * A server entry as a connection target; a relative `cwd` is taken from the config file's folder.
 * `authProvider` signs the requests of a remote server with an `oauth` block; `packages` starts
 * an `npx -y pkg` server from the gateway's package cache; `sandbox` (the gateway's sandbox
 * settings) decides how a stdio server `name` is confined. Without it, commands run unconfined.
 */
export function serverTarget(
  entry: ServerConfig,
  baseDir: string,
  authProvider?: OAuthClientProvider,
  packages?: PackageCache,
  sandbox?: SandboxContext,
  name?: string,
): DownstreamTarget {
  if (entry.kind === 'remote') {
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
    ...(packages === undefined ? {} : { packages }),
    ...(sandbox === undefined
      ? {}
      : {
          sandbox: serverSandboxPlan(name ?? entry.namespace, entry.sandbox, entry.args, sandbox, entry.env),
        }),
  };
}
