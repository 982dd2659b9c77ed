import { parse } from 'yaml';
import { isRecord } from '../../foundation/util/is-record.js';
import { HTTP_METHODS, type OpenApiDocument, type ServerObject } from './openapi-document.js';

/**
 * Puts back the `servers` lists exactly as the downloaded document wrote them.
 *
 * Why: swagger-parser rewrites a relative server URL of a document fetched over http(s) as
 * `protocol//hostname + url`, dropping the port (`/api` of a spec served at
 * `http://host:8080/openapi.yaml` becomes `http://host/api`). We resolve relative server URLs
 * ourselves, against the full spec URL, so we need the originals. `raw` is the root document's
 * text (YAML or JSON; JSON is YAML). Servers inside `$ref`'d path items keep the parser's value.
 */
export function restoreRelativeServers(document: OpenApiDocument, raw: string): void {
  let original: unknown;
  try {
    original = parse(raw);
  } catch {
    return; // the parser accepted it; nothing better to restore from
  }
  if (!isRecord(original)) return;
  const servers = serversOf(original);
  if (servers) document.servers = servers;
  const paths = isRecord(original.paths) ? original.paths : {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const source = paths[path];
    if (!item || !isRecord(source)) continue;
    const itemServers = serversOf(source);
    if (itemServers) item.servers = itemServers;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      const opSource = source[method];
      const opServers = isRecord(opSource) ? serversOf(opSource) : undefined;
      if (operation && opServers) operation.servers = opServers;
    }
  }
}

function serversOf(node: Record<string, unknown>): ServerObject[] | undefined {
  const servers = node.servers;
  if (!Array.isArray(servers)) return undefined;
  return servers.every((s) => isRecord(s) && typeof s.url === 'string')
    ? (servers as ServerObject[])
    : undefined;
}
