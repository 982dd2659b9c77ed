import type { ToolAnnotations } from '../../foundation/model/tool.js';

/** The annotation hints a toolset can require (MCP's four behaviour hints). */
export type RequiredAnnotations = { [K in BehaviourHint]?: ToolAnnotations[K] | undefined };

export type BehaviourHint = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';

/**
 * A toolset: a named, filtered view of the catalog (config `toolsets`). Every condition given must
 * hold for a tool to be a member; a list is satisfied by any one of its entries. A toolset with no
 * conditions holds every tool.
 */
export interface ToolsetDefinition {
  /** Valid as a URL path segment: served at `/mcp/{name}`. */
  name: string;
  description?: string | undefined;
  /** The tool's namespace is one of these. */
  namespaces?: readonly string[] | undefined;
  /** The tool carries at least one of these tags (normalised like tool tags). */
  tags?: readonly string[] | undefined;
  /** The tool's id matches one of these ids or globs (`github:*`, `*:read_*`). */
  tools?: readonly string[] | undefined;
  /** The tool's id matches none of these ids or globs (exclusion wins). */
  exclude?: readonly string[] | undefined;
  /** The tool's hints have these values (MCP defaults apply to hints a tool does not declare). */
  annotations?: RequiredAnnotations | undefined;
}
