import { MAX_PAGE_SIZE } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/gateway-error.js';
import type { Metatool, MetatoolContext } from './metatool.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function toolsetsOf(ctx: MetatoolContext) {
  // Served only with toolsets (`requires`), so this is a wiring fault, never the caller's.
  if (!ctx.toolsets) throw new GatewayError('internal', 'Toolsets are not available in this session');
  return ctx.toolsets;
}

/**
 * `list_toolsets` and `describe_toolset` (docs/DESIGN.md §4; parameters after the ApertureStack
 * reference): the named, filtered views of the catalog this caller may use, each also served as
 * its own MCP endpoint. A caller confined to toolsets sees only its own.
 */
export const TOOLSET_METATOOLS: readonly Metatool[] = [
  {
    name: 'list_toolsets',
    title: 'List toolsets',
    description:
      'List the toolsets available to you: named groups of tools, each with a description, how many tools it ' +
      'holds, and the MCP endpoint that serves only its tools. Use describe_toolset to see what one contains.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { title: 'List toolsets', ...READ_ONLY },
    requires: 'toolsets',
    async handler(_args, ctx) {
      return { toolsets: toolsetsOf(ctx).list() };
    },
  },
  {
    name: 'describe_toolset',
    title: 'Describe a toolset',
    description:
      'Show one toolset: its definition (namespaces, tags, tool ids or globs, exclusions, required annotations), ' +
      'how many tools it holds, and its tools in id order, a page at a time (id, description, tags; no schemas).',
    inputSchema: {
      type: 'object',
      properties: {
        toolset_id: {
          type: 'string',
          minLength: 1,
          description: 'The toolset name, as list_toolsets returns it.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_PAGE_SIZE,
          description: `How many tools to return (default 20, at most ${MAX_PAGE_SIZE}).`,
        },
        cursor: { type: 'string', description: 'nextCursor from the previous page.' },
      },
      required: ['toolset_id'],
      additionalProperties: false,
    },
    annotations: { title: 'Describe a toolset', ...READ_ONLY },
    requires: 'toolsets',
    async handler(args, ctx) {
      const { toolset_id, limit, cursor } = args as { toolset_id: string; limit?: number; cursor?: string };
      return { ...toolsetsOf(ctx).describe(toolset_id, { limit, cursor }) };
    },
  },
];
