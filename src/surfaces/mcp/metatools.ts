import { z } from 'zod';
import { CURSOR_INPUT, LIMIT_INPUT, SEARCH_INPUT } from '../../composition/search-input-schema.js';
import type { ToolDescription } from '../../discovery/describe-tool.js';
import { formatTool, TOOL_FORMATS } from '../../foundation/adapters/tool-formats.js';
import {
  toolSignature,
  toTypeScriptDeclarations,
} from '../../foundation/adapters/typescript-declarations.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import { isModelVisible } from '../../foundation/model/tool-ui.js';
import { sessionOf } from '../../foundation/ports/tool-backend.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { defineMetatool, type Metatool, READ_ONLY, RUNS_TOOLS } from './metatool.js';
import type { ResourceNaming } from './resource-naming.js';
import { SKILL_METATOOLS } from './skill-metatools.js';
import { TOOLSET_METATOOLS } from './toolset-metatools.js';

const toolId = z.string().min(1);
/** An arguments object: any keys, checked later against the tool's own input schema. */
const toolArgs = z.looseObject({});

/**
 * The most tokens (o200k_base) the always-loaded `tools/list` of `metatools` exposure may cost with
 * the default config, code mode's `execute_code` and `code_api` included. It is paid on every turn of
 * every conversation before the agent has done anything, so a test holds the surface to it.
 */
export const METATOOL_SURFACE_BUDGET = 1000;

/** The metatools of docs/DESIGN.md §4 served by this build (names and parameters are fixed there). */
export const METATOOLS: readonly Metatool[] = [
  defineMetatool({
    name: 'search_tools',
    title: 'Search tools',
    description: 'Find tools for a task, best first. Start here; then describe_tool, run_tool.',
    input: SEARCH_INPUT,
    annotations: READ_ONLY,
    async handler(args, { scope, call }) {
      return { ...(await scope.search({ ...args, session: sessionOf(call.caller) })) };
    },
  }),
  defineMetatool({
    name: 'list_tools',
    title: 'List tools',
    description: 'Browse tools by id, a page at a time.',
    input: z.strictObject({
      namespace: z.string().optional(),
      limit: LIMIT_INPUT.optional(),
      cursor: CURSOR_INPUT.optional(),
    }),
    annotations: READ_ONLY,
    async handler(args, { scope }) {
      return { ...scope.list(args) };
    },
  }),
  defineMetatool({
    name: 'list_namespaces',
    title: 'List namespaces',
    description: 'Tool groups and their tool counts.',
    input: z.strictObject({}),
    annotations: READ_ONLY,
    async handler(_args, { scope }) {
      return { namespaces: scope.namespaces() };
    },
  }),
  defineMetatool({
    name: 'describe_tool',
    title: 'Describe a tool',
    description:
      "A tool's input schema; read it before run_tool. detail_level summary is cheapest, full adds examples.",
    input: z.strictObject({
      tool_id: toolId,
      detail_level: z.enum(['summary', 'schema', 'full']).default('schema'),
      examples_max: z.int().min(0).max(20).optional(),
      format: z
        .enum([...TOOL_FORMATS, 'typescript'])

        .optional(),
    }),
    annotations: READ_ONLY,
    async handler({ tool_id, detail_level, examples_max, format }, { scope, resources }) {
      const result = scope.describe(tool_id, detail_level, examples_max);
      const described: Record<string, unknown> = {
        ...result,
        tool:
          resources && result.tool.app !== undefined
            ? describedForClient(result.tool, scope.get(tool_id), resources)
            : result.tool,
      };
      if (format === 'typescript') described.formatted = toolSignature(scope.get(tool_id)).join('\n');
      else if (format !== undefined) {
        const { value, warnings } = formatTool(scope.get(tool_id), format);
        described.formatted = value;
        if (warnings.length > 0) described.formatWarnings = warnings;
      }
      return described;
    },
  }),
  defineMetatool({
    name: 'list_tool_examples',
    title: 'List tool examples',
    description: 'Worked examples of calling a tool.',
    input: z.strictObject({ tool_id: toolId, max: z.int().min(1).max(20).default(5) }),
    annotations: READ_ONLY,
    async handler({ tool_id, max }, { scope }) {
      return { tool_id, examples: scope.examples(tool_id, max) };
    },
  }),
  defineMetatool({
    name: 'run_tool',
    title: 'Run a tool',
    description: 'Run a tool with args matching its input schema; a failure has error.code.',
    input: z.strictObject({
      tool_id: toolId,
      args: toolArgs.optional(),
    }),
    annotations: RUNS_TOOLS,
    async handler({ tool_id, args }, { scope, call, resources }) {
      const result = await scope.run(tool_id, args ?? {}, call);
      if (!resources || !isRecord(result._meta)) return { passThrough: result };
      // The UI link of the result (its `_meta.ui`) names the app as the client reads it.
      return { passThrough: resources.resultMetaToClient(resources.namespaceOf(scope.get(tool_id)), result) };
    },
  }),
  defineMetatool({
    name: 'run_chain',
    title: 'Run a chain',
    description:
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the chain's template syntax, shown to the agent.
      'Run tools in order; args may use ${{ steps.<id>.result.x }} or "$prev.x". on_error=continue goes past a failure.',
    input: z.strictObject({
      steps: z
        .array(
          z.strictObject({
            tool_id: toolId,
            args: toolArgs.optional(),
            use_previous: z.boolean().default(false),
            id: z.string().optional(),
            on_error: z.enum(['stop', 'continue']).optional(),
          }),
        )
        .min(1),
    }),
    annotations: RUNS_TOOLS,
    async handler({ steps }, { scope, call }) {
      return { ...(await scope.chain(steps, call)) };
    },
  }),
  defineMetatool({
    name: 'execute_code',
    title: 'Execute code',
    description:
      'Run a program that calls many tools in one step, e.g. `await tools.call(id, args)`; ' +
      'the full API is in code_api. No imports or network.',
    input: z.strictObject({
      code: z.string().min(1).describe('Body of an async function; `return` the result.'),
      language: z.enum(['javascript', 'typescript']).default('javascript'),
      timeout_ms: z.int().min(1).optional(),
      max_tool_calls: z.int().min(0).optional(),
      memory_mb: z.int().min(8).optional(),
    }),
    annotations: RUNS_TOOLS,
    requires: 'code',
    async handler(args, { scope, call, code }) {
      if (!code) throw new GatewayError('invalid_request', 'Code mode is disabled on this gateway');
      return { ...(await code.execute(scope, args, call)) };
    },
  }),
  defineMetatool({
    name: 'code_api',
    title: 'Code API',
    description: "TypeScript declarations of execute_code's `tools`.",
    input: z.strictObject({ namespace: z.string().optional() }),
    annotations: READ_ONLY,
    requires: 'code',
    async handler({ namespace }, { scope }) {
      // App-only tools (MCP Apps) are the app's to call, not the model's code's.
      const tools = scope
        .tools()
        .filter((t) => (namespace === undefined || t.namespace === namespace) && isModelVisible(t));
      if (namespace !== undefined && tools.length === 0) {
        throw new GatewayError(
          'invalid_request',
          `No tools in namespace "${namespace}" (see list_namespaces)`,
        );
      }
      return { language: 'typescript', declarations: toTypeScriptDeclarations(tools), tools: tools.length };
    },
  }),
  ...TOOLSET_METATOOLS,
  ...SKILL_METATOOLS,
];

/**
 * A describe's tool with its app's `ui://` resource named as the client reads it (`resources/list`
 * names it the same way), in `app` and in `_meta` alike.
 */
function describedForClient(
  described: ToolDescription,
  tool: Tool,
  resources: ResourceNaming,
): ToolDescription {
  if (tool.ui === undefined) return described;
  const out: ToolDescription = { ...described };
  const uri = resources.toolUiUriToClient(tool);
  if (out.app !== undefined && uri !== undefined) out.app = { ...out.app, resourceUri: uri };
  if (out._meta !== undefined) out._meta = resources.toolMetaToClient(tool) ?? out._meta;
  return out;
}
