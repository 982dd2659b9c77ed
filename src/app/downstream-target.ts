import { resolve } from 'node:path';
import type { ServerConfig } from '../config/config-schema.js';
import type { DownstreamTarget } from '../sources/mcp/open-connection.js';

/** A server entry as a connection target; a relative `cwd` is taken from the config file's folder. */
export function downstreamTarget(entry: ServerConfig, baseDir: string): DownstreamTarget {
  if (entry.kind === 'remote') {
    return { kind: 'remote', url: entry.url, transport: entry.transport, headers: entry.headers };
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
