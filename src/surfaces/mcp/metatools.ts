import { z } from 'zod';
import { CURSOR_INPUT, LIMIT_INPUT, SEARCH_INPUT } from '../../composition/search-input-schema.js';
import { formatTool, TOOL_FORMATS } from '../../foundation/adapters/tool-formats.js';
import {
  toolSignature,
  toTypeScriptDeclarations,
} from '../../foundation/adapters/typescript-declarations.js';
import { GatewayError } from '../../foundation/gateway-error.js';
import { sessionOf } from '../../foundation/tool-backend.js';
import { defineMetatool, type Metatool } from './metatool.js';
import { SKILL_METATOOLS } from './skill-metatools.js';
import { TOOLSET_METATOOLS } from './toolset-metatools.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
// run_tool and run_chain can reach any tool, so they inherit the worst case.
const RUNS_TOOLS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

const toolId = z
  .string()
  .min(1)
  .describe('A tool id as returned by search_tools or list_tools, e.g. "plantuml:encode".');
/** An arguments object: any keys, checked later against the tool's own input schema. */
const toolArgs = z.looseObject({});

/** The metatools of docs/DESIGN.md §4 served by this build (names and parameters are fixed there). */
export const METATOOLS: readonly Metatool[] = [
  defineMetatool({
    name: 'search_tools',
    title: 'Search tools',
    description:
      'Find tools for a task. Describe what you want to do in a few words (e.g. "encode a diagram", "current time in Tokyo"); ' +
      'returns the best matching tools, best first, with id, description, tags and a relevance score, but no schemas. ' +
      'Then call describe_tool on the one you want to see its parameters, and run_tool to run it. ' +
      'Optional filters narrow the candidates before ranking.',
    input: SEARCH_INPUT,
    annotations: { title: 'Search tools', ...READ_ONLY },
    async handler(args, { scope, call }) {
      return { ...(await scope.search({ ...args, session: sessionOf(call.caller) })) };
    },
  }),
  defineMetatool({
    name: 'list_tools',
    title: 'List tools',
    description:
      'List the available tools in id order, a page at a time (id, description, tags; no schemas). ' +
      'Prefer search_tools to find a tool for a task; use this to browse a namespace.',
    input: z.strictObject({
      namespace: z.string().describe('Only tools of this namespace.').optional(),
      limit: LIMIT_INPUT.optional(),
      cursor: CURSOR_INPUT.optional(),
    }),
    annotations: { title: 'List tools', ...READ_ONLY },
    async handler(args, { scope }) {
      return { ...scope.list(args) };
    },
  }),
  defineMetatool({
    name: 'list_namespaces',
    title: 'List namespaces',
    description:
      'List the namespaces (groups of tools, usually one per source or server) with how many tools each has.',
    input: z.strictObject({}),
    annotations: { title: 'List namespaces', ...READ_ONLY },
    async handler(_args, { scope }) {
      return { namespaces: scope.namespaces() };
    },
  }),
  defineMetatool({
    name: 'describe_tool',
    title: 'Describe a tool',
    description:
      'Show one tool. detail_level "summary": a short text; "schema" (default): the tool with its input and output ' +
      'JSON Schemas and annotations — read this before run_tool; "full": also notes and worked examples.',
    input: z.strictObject({
      tool_id: toolId,
      detail_level: z.enum(['summary', 'schema', 'full']).default('schema'),
      examples_max: z.int().min(0).max(20).describe('Most examples to include (full).').optional(),
      format: z
        .enum([...TOOL_FORMATS, 'typescript'])
        .describe(
          'Also return the tool in another shape under "formatted": a provider\'s function definition ' +
            '("openai", "openai-responses", "anthropic", "gemini"), an MCP tools/list entry ("mcp"), an A2A skill ' +
            '("a2a"), or "typescript" (its typed signature as called from execute_code). Features a format cannot ' +
            'express are listed under "formatWarnings".',
        )
        .optional(),
    }),
    annotations: { title: 'Describe a tool', ...READ_ONLY },
    async handler({ tool_id, detail_level, examples_max, format }, { scope }) {
      const described: Record<string, unknown> = { ...scope.describe(tool_id, detail_level, examples_max) };
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
    description:
      'Show worked examples of calling one tool: a title, the arguments, and what the result looks like.',
    input: z.strictObject({ tool_id: toolId, max: z.int().min(1).max(20).default(5) }),
    annotations: { title: 'List tool examples', ...READ_ONLY },
    async handler({ tool_id, max }, { scope }) {
      return { tool_id, examples: scope.examples(tool_id, max) };
    },
  }),
  defineMetatool({
    name: 'run_tool',
    title: 'Run a tool',
    description:
      "Run one tool with arguments that match its input schema (see describe_tool). Returns the tool's own result. " +
      'On failure the result has isError: true and structuredContent.error with a stable code ' +
      '(tool_not_found, validation_input with the failing path, execution_failed, timeout, …) and whether a retry may help.',
    input: z.strictObject({
      tool_id: toolId,
      args: toolArgs.describe('The arguments object for the tool.').optional(),
    }),
    annotations: { title: 'Run a tool', ...RUNS_TOOLS },
    async handler({ tool_id, args }, { scope, call }) {
      return { passThrough: await scope.run(tool_id, args ?? {}, call) };
    },
  }),
  defineMetatool({
    name: 'run_chain',
    title: 'Run a chain of tools',
    description:
      'Run several tools in order, stopping at the first failure (error code chain_step_failed; details.step is the ' +
      'zero-based index of the failing step). With use_previous: true a step also receives, from the previous ' +
      "step's structured result, the fields whose names its own input schema declares and that its args do not set. " +
      'Returns every step\'s result and the last one as "result".',
    input: z.strictObject({
      steps: z
        .array(
          z.strictObject({
            tool_id: toolId,
            args: toolArgs.optional(),
            use_previous: z.boolean().default(false),
          }),
        )
        .min(1),
    }),
    annotations: { title: 'Run a chain of tools', ...RUNS_TOOLS },
    async handler({ steps }, { scope, call }) {
      return { ...(await scope.chain(steps, call)) };
    },
  }),
  defineMetatool({
    name: 'execute_code',
    title: 'Execute code',
    description:
      'Run a short JavaScript or TypeScript program that calls tools, to do in one step what would take many ' +
      'run_tool round trips: call several tools, filter and join their results, return only what matters. ' +
      'The code is the body of an async function: use `await` and `return` the result (JSON-serialisable). Inside: ' +
      '`await tools.call("namespace:name", args)` (resolves to the structured result, else the text; rejects with an ' +
      'Error whose .code is the gateway error code), typed proxies `await tools.<namespace>.<name>(args)` (see code_api ' +
      'for their TypeScript declarations), `await tools.search(query, { limit })`, `await tools.describe(id)`, and ' +
      'console.log/info/warn/error (captured). Nothing else: no require/import, file system, network or process. ' +
      'Returns { value, logs, toolCalls: [{ tool_id, ms, ok, code? }], durationMs }.',
    input: z.strictObject({
      code: z.string().min(1).describe('The program: the body of an async function.'),
      language: z.enum(['javascript', 'typescript']).default('javascript'),
      timeout_ms: z.int().min(1).describe('Wall-clock limit (default 30000).').optional(),
      max_tool_calls: z.int().min(0).describe('Most tools.call calls (default 100).').optional(),
      memory_mb: z.int().min(8).describe('Memory limit of the program (default 64).').optional(),
    }),
    annotations: { title: 'Execute code', ...RUNS_TOOLS },
    requires: 'code',
    async handler(args, { scope, call, code }) {
      if (!code) throw new GatewayError('invalid_request', 'Code mode is disabled on this gateway');
      return { ...(await code.execute(scope, args, call)) };
    },
  }),
  defineMetatool({
    name: 'code_api',
    title: 'Code API',
    description:
      'TypeScript declarations of the `tools` object that execute_code programs see: one typed method per tool, ' +
      "tools.<namespace>.<name>(args): Promise<result>, generated from the tools' JSON Schemas. Read it (optionally " +
      'for one namespace) before writing a program.',
    input: z.strictObject({ namespace: z.string().describe('Only the tools of this namespace.').optional() }),
    annotations: { title: 'Code API', ...READ_ONLY },
    requires: 'code',
    async handler({ namespace }, { scope }) {
      const tools = scope.tools().filter((t) => namespace === undefined || t.namespace === namespace);
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
