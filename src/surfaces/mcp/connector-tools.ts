import { z } from 'zod';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { Tool, ToolAnnotations } from '../../foundation/tool.js';
import { sessionOf } from '../../foundation/tool-backend.js';
import { defineMetatool, type Metatool, type PassThrough } from './metatool.js';

/** How many tools `search` returns. */
export const CONNECTOR_SEARCH_LIMIT = 10;

/** One `search` hit (shape required by ChatGPT connectors). */
export interface ConnectorSearchResult {
  id: string;
  title: string;
  url: string;
}

/** The `fetch` document (shape required by ChatGPT connectors). */
export interface ConnectorDocument {
  id: string;
  title: string;
  text: string;
  url: string;
  metadata: { namespace: string; tags: string[]; annotations: ToolAnnotations };
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * `search` and `fetch` over the catalog: the two tools ChatGPT connectors (deep research, company
 * knowledge) require of an MCP server, the catalog's tools being the documents. Each answers with
 * one text block holding the JSON object (shape required by ChatGPT connectors) and the same object
 * as structuredContent. `baseUrl` is the gateway's public origin, read per call; a result's url is
 * the tool's REST resource, `GET {baseUrl}/api/tools/{id}`.
 */
export function connectorTools(baseUrl: () => string): Metatool[] {
  const toolUrl = (id: string) => `${baseUrl().replace(/\/+$/, '')}/api/tools/${encodeURIComponent(id)}`;
  return [
    defineMetatool({
      name: 'search',
      title: 'Search the tool catalog',
      description:
        'Search the catalog of tools this gateway offers. Describe a task or capability in a few words ' +
        '(e.g. "encode a diagram", "current time in a city"); returns up to ' +
        `${CONNECTOR_SEARCH_LIMIT} matching tools, best first, as results [{ id, title, url }]. ` +
        'An empty query lists the first tools by id. Pass a result id to fetch to read that tool in full.',
      input: z.strictObject({
        query: z.string().describe('What you are looking for, in words or keywords.'),
      }),
      annotations: { title: 'Search the tool catalog', ...READ_ONLY },
      async handler({ query }, { scope, call }) {
        const page = await scope.search({
          query,
          limit: CONNECTOR_SEARCH_LIMIT,
          session: sessionOf(call.caller),
        });
        const results: ConnectorSearchResult[] = page.tools.map((hit) => {
          const tool = scope.get(hit.id);
          return { id: tool.id, title: toolTitle(tool), url: toolUrl(tool.id) };
        });
        return jsonResult({ results });
      },
    }),
    defineMetatool({
      name: 'fetch',
      title: 'Fetch a tool',
      description:
        'Read one tool of the catalog in full, by the id a search result gave: its description, the JSON ' +
        'Schema of its arguments and, when it declares one, of its result; metadata has its namespace, ' +
        'tags and annotations (readOnlyHint…).',
      input: z.strictObject({
        id: z.string().describe('A tool id from a search result, e.g. "plantuml:encode".'),
      }),
      annotations: { title: 'Fetch a tool', ...READ_ONLY },
      async handler({ id }, { scope }) {
        return jsonResult({ ...toolDocument(scope, id, toolUrl) });
      },
    }),
  ];
}

/** The `fetch` document of a visible tool; `tool_not_found` otherwise. */
function toolDocument(scope: ToolScope, id: string, toolUrl: (id: string) => string): ConnectorDocument {
  const tool = scope.get(id);
  return {
    id: tool.id,
    title: toolTitle(tool),
    text: toolText(tool),
    url: toolUrl(tool.id),
    metadata: { namespace: tool.namespace, tags: tool.tags, annotations: tool.annotations },
  };
}

function toolTitle(tool: Tool): string {
  return tool.title ?? tool.annotations.title ?? tool.name;
}

/** A readable text of the tool: what it does, then its schemas as pretty JSON. */
function toolText(tool: Tool): string {
  const parts = [
    `${toolTitle(tool)} (${tool.id})`,
    tool.description,
    `Input schema:\n${JSON.stringify(tool.inputSchema, null, 2)}`,
  ];
  if (tool.outputSchema !== undefined) {
    parts.push(`Output schema:\n${JSON.stringify(tool.outputSchema, null, 2)}`);
  }
  return parts.join('\n\n');
}

/** One text block with the JSON, and the same object as structuredContent. */
function jsonResult(value: Record<string, unknown>): PassThrough {
  return {
    passThrough: { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value },
  };
}
