import { z } from 'zod';
import { MAX_PAGE_SIZE } from '../../composition/tool-scope.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { defineMetatool, type Metatool, type MetatoolContext, READ_ONLY } from './metatool.js';

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
    description: 'Toolsets: named groups of tools, each with its own MCP endpoint.',
    input: z.strictObject({}),
    annotations: READ_ONLY,
    requires: 'toolsets',
    async handler(_args, ctx) {
      return { toolsets: toolsetsOf(ctx).list() };
    },
  }),
  defineMetatool({
    name: 'describe_toolset',
    title: 'Describe a toolset',
    description: "A toolset's definition and its tools, a page at a time.",
    input: z.strictObject({
      toolset_id: z.string().min(1),
      limit: z.int().min(1).max(MAX_PAGE_SIZE).describe('Default 20.').optional(),
      cursor: z.string().optional(),
    }),
    annotations: READ_ONLY,
    requires: 'toolsets',
    async handler({ toolset_id, limit, cursor }, ctx) {
      return { ...toolsetsOf(ctx).describe(toolset_id, { limit, cursor }) };
    },
  }),
];
