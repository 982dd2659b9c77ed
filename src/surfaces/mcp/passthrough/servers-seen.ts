import type { ToolScope } from '../../../composition/tool-scope.js';
import type { PassthroughRelay } from './passthrough-relay.js';

/**
 * The confinement rule of passthrough: a caller confined to toolsets sees the prompts and
 * resources of the downstream servers whose tools its scope sees — at least one of them — and of
 * no other. Toolsets select tools only (by namespace, tag, id or annotation), and a server's
 * prompts and resources are about its tools, so this is the rule a toolset's author expects:
 * a toolset of `github:*` shows GitHub's prompts and resources, never the filesystem server's.
 * The set follows the catalog and the toolsets (a reload moves the scope's version).
 */
export function serversSeen(
  scope: Pick<ToolScope, 'version' | 'tools'>,
): (server: PassthroughRelay) => boolean {
  let version: number | undefined;
  let sources = new Set<string>();
  return (server) => {
    if (scope.version !== version) {
      version = scope.version;
      sources = new Set(scope.tools().map((tool) => tool.origin.sourceId));
    }
    return sources.has(server.sourceId);
  };
}
