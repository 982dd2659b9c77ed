import type { Client, Tool as McpTool } from '@modelcontextprotocol/client';
import { ListToolsResultSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { MAX_SCHEMA_DEPTH, pathPastDepth } from '../../foundation/util/json-depth.js';

/**
 * A page of `tools/list` as it arrives, each tool still unchecked: the SDK's tool schema recurses
 * through a tool's JSON Schema, so one tool nested thousands of levels deep overflowed the stack
 * and failed the whole listing — and the server — as `internal`.
 */
const ListedPageSchema = z.looseObject({ tools: z.array(z.unknown()) });

/** Pages a `tools/list` may go through before the listing is considered runaway. */
export const MAX_LIST_PAGES = 1000;

export interface ListAllToolsOptions {
  /** The server's name (the key in `servers`), for the error a runaway listing raises. */
  server: string;
  /** Time limit of each page's request, in ms; a function is asked before each page. */
  timeoutMs: number | (() => number);
  /** Aborts the listing (doctor's `--timeout`). */
  signal?: AbortSignal;
  /** Default `MAX_LIST_PAGES` (tests lower it). */
  maxPages?: number;
}

/**
 * Lists a server's tools through every page; a server without the `tools` capability has none.
 * Used by the gateway (`ToolListing`) and by `aperture doctor`, so both see the same list and fail
 * the same way: a server still returning a `nextCursor` after `maxPages` pages fails the listing
 * with `backend_unavailable` naming it, rather than having its tools silently cut short.
 */
export async function listAllTools(client: Client, options: ListAllToolsOptions): Promise<McpTool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const maxPages = options.maxPages ?? MAX_LIST_PAGES;
  const tools: McpTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const timeout = typeof options.timeoutMs === 'function' ? options.timeoutMs() : options.timeoutMs;
    const page = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ListedPageSchema,
      { timeout, ...(options.signal ? { signal: options.signal } : {}) },
    );
    // A tool nested too deep for the schema check passes as it came (the catalog refuses it,
    // naming it, and serves the rest); the others are checked as the SDK would.
    const deep = page.tools.filter((tool) => pathPastDepth(tool, MAX_SCHEMA_DEPTH + 1) !== undefined);
    if (deep.some((tool) => !isRecord(tool) || typeof tool.name !== 'string')) {
      throw await invalidResult('Invalid result for tools/list: a tool without a name');
    }
    const checked = ListToolsResultSchema.safeParse({
      ...page,
      tools: page.tools.filter((t) => !deep.includes(t)),
    });
    if (!checked.success) {
      throw await invalidResult(`Invalid result for tools/list: ${checked.error}`);
    }
    const result = checked.data;
    tools.push(...result.tools, ...(deep as McpTool[]));
    cursor = result.nextCursor;
    if (!cursor) return tools;
  }
  throw new GatewayError(
    'backend_unavailable',
    `server "${options.server}": tools/list still returned a nextCursor after ${maxPages} pages (${tools.length} tools); listing abandoned`,
    { details: { server: options.server, pages: maxPages, tools: tools.length } },
  );
}

/**
 * The SDK's own error for a result that fails its schema, as its `tools/list` would throw it. The
 * client SDK is imported here, when a listing fails, not with this module: `aperture doctor` and
 * the CLI import this file at start-up, before any command needs the client (it is loaded lazily,
 * with the first MCP server).
 */
async function invalidResult(message: string): Promise<Error> {
  const { SdkError, SdkErrorCode } = await import('@modelcontextprotocol/client');
  return new SdkError(SdkErrorCode.InvalidResult, message);
}
