import { z } from 'zod';
import type { ToolScope } from '../../composition/tool-scope.js';
import type { Tool, ToolAnnotations } from '../../foundation/model/tool.js';
import { sessionOf } from '../../foundation/ports/tool-backend.js';
import { defineMetatool, type Metatool, type PassThrough, READ_ONLY } from './metatool.js';

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

// Spelled out in full, unlike the metatools' hints: ChatGPT connectors check these two tools' hints
// themselves, and they are not part of the always-loaded metatool surface.
const CONNECTOR_HINTS: ToolAnnotations = { ...READ_ONLY, destructiveHint: false, idempotentHint: true };

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
      description: `Search the tool catalog by task; returns up to ${CONNECTOR_SEARCH_LIMIT} results [{ id, title, url }], best first. fetch reads one.`,
      input: z.strictObject({
        query: z.string().describe('e.g. "encode a diagram"; empty lists the first tools.'),
      }),
      annotations: CONNECTOR_HINTS,
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
      description: "A tool in full by a search result's id: description, input and output schemas, metadata.",
      input: z.strictObject({
        id: z.string(),
      }),
      annotations: CONNECTOR_HINTS,
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
