import { z } from 'zod';
import { MAX_PAGE_SIZE } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/gateway-error.js';
import { defineMetatool, type Metatool, type MetatoolContext } from './metatool.js';

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
  defineMetatool({
    name: 'list_toolsets',
    title: 'List toolsets',
    description:
      'List the toolsets available to you: named groups of tools, each with a description, how many tools it ' +
      'holds, and the MCP endpoint that serves only its tools. Use describe_toolset to see what one contains.',
    input: z.strictObject({}),
    annotations: { title: 'List toolsets', ...READ_ONLY },
    requires: 'toolsets',
    async handler(_args, ctx) {
      return { toolsets: toolsetsOf(ctx).list() };
    },
  }),
  defineMetatool({
    name: 'describe_toolset',
    title: 'Describe a toolset',
    description:
      'Show one toolset: its definition (namespaces, tags, tool ids or globs, exclusions, required annotations), ' +
      'how many tools it holds, and its tools in id order, a page at a time (id, description, tags; no schemas).',
    input: z.strictObject({
      toolset_id: z.string().min(1).describe('The toolset name, as list_toolsets returns it.'),
      limit: z
        .int()
        .min(1)
        .max(MAX_PAGE_SIZE)
        .describe(`How many tools to return (default 20, at most ${MAX_PAGE_SIZE}).`)
        .optional(),
      cursor: z.string().describe('nextCursor from the previous page.').optional(),
    }),
    annotations: { title: 'Describe a toolset', ...READ_ONLY },
    requires: 'toolsets',
    async handler({ toolset_id, limit, cursor }, ctx) {
      return { ...toolsetsOf(ctx).describe(toolset_id, { limit, cursor }) };
    },
  }),
];
