import type { ExecuteCodeRequest } from '../../composition/code/code-executor.js';
import type { SearchFilters } from '../../composition/search-filters.js';
import { CURSOR_SCHEMA, LIMIT_SCHEMA, SEARCH_INPUT_SCHEMA } from '../../composition/search-input-schema.js';
import type { DetailLevel } from '../../discovery/describe-tool.js';
import type { ChainStep } from '../../execution/chain-runner.js';
import { formatTool, TOOL_FORMATS, type ToolFormat } from '../../foundation/adapters/tool-formats.js';
import {
  toolSignature,
  toTypeScriptDeclarations,
} from '../../foundation/adapters/typescript-declarations.js';
import { GatewayError } from '../../foundation/gateway-error.js';
import { sessionOf } from '../../foundation/tool-backend.js';
import type { Metatool } from './metatool.js';
import { SKILL_METATOOLS } from './skill-metatools.js';
import { TOOLSET_METATOOLS } from './toolset-metatools.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
// run_tool and run_chain can reach any tool, so they inherit the worst case.
const RUNS_TOOLS = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

const limit = LIMIT_SCHEMA;
const cursor = CURSOR_SCHEMA;
const toolId = {
  type: 'string',
  minLength: 1,
  description: 'A tool id as returned by search_tools or list_tools, e.g. "plantuml:encode".',
};

/** The metatools of docs/DESIGN.md §4 served by this build (names and parameters are fixed there). */
export const METATOOLS: readonly Metatool[] = [
  {
    name: 'search_tools',
    title: 'Search tools',
    description:
      'Find tools for a task. Describe what you want to do in a few words (e.g. "encode a diagram", "current time in Tokyo"); ' +
      'returns the best matching tools, best first, with id, description, tags and a relevance score, but no schemas. ' +
      'Then call describe_tool on the one you want to see its parameters, and run_tool to run it. ' +
      'Optional filters narrow the candidates before ranking.',
    inputSchema: SEARCH_INPUT_SCHEMA,
    annotations: { title: 'Search tools', ...READ_ONLY },
    async handler(args, { scope, call }) {
      const {
        query,
        limit: l,
        cursor: c,
        ...filters
      } = args as { query: string; limit?: number; cursor?: string };
      const session = sessionOf(call.caller);
      return {
        ...(await scope.search({ query, limit: l, cursor: c, session, ...(filters as SearchFilters) })),
      };
    },
  },
  {
    name: 'list_tools',
    title: 'List tools',
    description:
      'List the available tools in id order, a page at a time (id, description, tags; no schemas). ' +
      'Prefer search_tools to find a tool for a task; use this to browse a namespace.',
    inputSchema: {
      type: 'object',
      properties: {
        namespace: { type: 'string', description: 'Only tools of this namespace.' },
        limit,
        cursor,
      },
      additionalProperties: false,
    },
    annotations: { title: 'List tools', ...READ_ONLY },
    async handler(args, { scope }) {
      return { ...scope.list(args as { namespace?: string; limit?: number; cursor?: string }) };
    },
  },
  {
    name: 'list_namespaces',
    title: 'List namespaces',
    description:
      'List the namespaces (groups of tools, usually one per source or server) with how many tools each has.',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { title: 'List namespaces', ...READ_ONLY },
    async handler(_args, { scope }) {
      return { namespaces: scope.namespaces() };
    },
  },
  {
    name: 'describe_tool',
    title: 'Describe a tool',
    description:
      'Show one tool. detail_level "summary": a short text; "schema" (default): the tool with its input and output ' +
      'JSON Schemas and annotations — read this before run_tool; "full": also notes and worked examples.',
    inputSchema: {
      type: 'object',
      properties: {
        tool_id: toolId,
        detail_level: { type: 'string', enum: ['summary', 'schema', 'full'], default: 'schema' },
        examples_max: {
          type: 'integer',
          minimum: 0,
          maximum: 20,
          description: 'Most examples to include (full).',
        },
        format: {
          type: 'string',
          enum: [...TOOL_FORMATS, 'typescript'],
          description:
            'Also return the tool in another shape under "formatted": a provider\'s function definition ' +
            '("openai", "openai-responses", "anthropic", "gemini"), an MCP tools/list entry ("mcp"), an A2A skill ' +
            '("a2a"), or "typescript" (its typed signature as called from execute_code). Features a format cannot ' +
            'express are listed under "formatWarnings".',
        },
      },
      required: ['tool_id'],
      additionalProperties: false,
    },
    annotations: { title: 'Describe a tool', ...READ_ONLY },
    async handler(args, { scope }) {
      const { tool_id, detail_level, examples_max, format } = args as {
        tool_id: string;
        detail_level?: DetailLevel;
        examples_max?: number;
        format?: ToolFormat | 'typescript';
      };
      const described: Record<string, unknown> = {
        ...scope.describe(tool_id, detail_level ?? 'schema', examples_max),
      };
      if (format === 'typescript') described.formatted = toolSignature(scope.get(tool_id)).join('\n');
      else if (format !== undefined) {
        const { value, warnings } = formatTool(scope.get(tool_id), format);
        described.formatted = value;
        if (warnings.length > 0) described.formatWarnings = warnings;
      }
      return described;
    },
  },
  {
    name: 'list_tool_examples',
    title: 'List tool examples',
    description:
      'Show worked examples of calling one tool: a title, the arguments, and what the result looks like.',
    inputSchema: {
      type: 'object',
      properties: { tool_id: toolId, max: { type: 'integer', minimum: 1, maximum: 20, default: 5 } },
      required: ['tool_id'],
      additionalProperties: false,
    },
    annotations: { title: 'List tool examples', ...READ_ONLY },
    async handler(args, { scope }) {
      const { tool_id, max } = args as { tool_id: string; max?: number };
      return { tool_id, examples: scope.examples(tool_id, max ?? 5) };
    },
  },
  {
    name: 'run_tool',
    title: 'Run a tool',
    description:
      "Run one tool with arguments that match its input schema (see describe_tool). Returns the tool's own result. " +
      'On failure the result has isError: true and structuredContent.error with a stable code ' +
      '(tool_not_found, validation_input with the failing path, execution_failed, timeout, …) and whether a retry may help.',
    inputSchema: {
      type: 'object',
      properties: {
        tool_id: toolId,
        args: {
          type: 'object',
          description: 'The arguments object for the tool.',
          additionalProperties: true,
        },
      },
      required: ['tool_id'],
      additionalProperties: false,
    },
    annotations: { title: 'Run a tool', ...RUNS_TOOLS },
    async handler(args, { scope, call }) {
      const { tool_id, args: toolArgs } = args as { tool_id: string; args?: Record<string, unknown> };
      return { passThrough: await scope.run(tool_id, toolArgs ?? {}, call) };
    },
  },
  {
    name: 'run_chain',
    title: 'Run a chain of tools',
    description:
      'Run several tools in order, stopping at the first failure (error code chain_step_failed; details.step is the ' +
      'zero-based index of the failing step). With use_previous: true a step also receives, from the previous ' +
      "step's structured result, the fields whose names its own input schema declares and that its args do not set. " +
      'Returns every step\'s result and the last one as "result".',
    inputSchema: {
      type: 'object',
      properties: {
        steps: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: {
              tool_id: toolId,
              args: { type: 'object', additionalProperties: true },
              use_previous: { type: 'boolean', default: false },
            },
            required: ['tool_id'],
            additionalProperties: false,
          },
        },
      },
      required: ['steps'],
      additionalProperties: false,
    },
    annotations: { title: 'Run a chain of tools', ...RUNS_TOOLS },
    async handler(args, { scope, call }) {
      const outcome = await scope.chain((args as { steps: ChainStep[] }).steps, call);
      return { ...outcome };
    },
  },
  {
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
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', minLength: 1, description: 'The program: the body of an async function.' },
        language: { type: 'string', enum: ['javascript', 'typescript'], default: 'javascript' },
        timeout_ms: { type: 'integer', minimum: 1, description: 'Wall-clock limit (default 30000).' },
        max_tool_calls: { type: 'integer', minimum: 0, description: 'Most tools.call calls (default 100).' },
        memory_mb: { type: 'integer', minimum: 8, description: 'Memory limit of the program (default 64).' },
      },
      required: ['code'],
      additionalProperties: false,
    },
    annotations: { title: 'Execute code', ...RUNS_TOOLS },
    requires: 'code',
    async handler(args, { scope, call, code }) {
      if (!code) throw new GatewayError('invalid_request', 'Code mode is disabled on this gateway');
      return { ...(await code.execute(scope, args as unknown as ExecuteCodeRequest, call)) };
    },
  },
  {
    name: 'code_api',
    title: 'Code API',
    description:
      'TypeScript declarations of the `tools` object that execute_code programs see: one typed method per tool, ' +
      "tools.<namespace>.<name>(args): Promise<result>, generated from the tools' JSON Schemas. Read it (optionally " +
      'for one namespace) before writing a program.',
    inputSchema: {
      type: 'object',
      properties: { namespace: { type: 'string', description: 'Only the tools of this namespace.' } },
      additionalProperties: false,
    },
    annotations: { title: 'Code API', ...READ_ONLY },
    requires: 'code',
    async handler(args, { scope }) {
      const namespace = (args as { namespace?: string }).namespace;
      const tools = scope.tools().filter((t) => namespace === undefined || t.namespace === namespace);
      if (namespace !== undefined && tools.length === 0) {
        throw new GatewayError(
          'invalid_request',
          `No tools in namespace "${namespace}" (see list_namespaces)`,
        );
      }
      return { language: 'typescript', declarations: toTypeScriptDeclarations(tools), tools: tools.length };
    },
  },
  ...TOOLSET_METATOOLS,
  ...SKILL_METATOOLS,
];
