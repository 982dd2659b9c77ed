import type { Client, Tool as McpTool } from '@modelcontextprotocol/client';
import { ListToolsResultSchema } from '@modelcontextprotocol/core';
import { GatewayError } from '../../foundation/model/gateway-error.js';

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
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      ListToolsResultSchema,
      { timeout, ...(options.signal ? { signal: options.signal } : {}) },
    );
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) return tools;
  }
  throw new GatewayError(
    'backend_unavailable',
    `server "${options.server}": tools/list still returned a nextCursor after ${maxPages} pages (${tools.length} tools); listing abandoned`,
    { details: { server: options.server, pages: maxPages, tools: tools.length } },
  );
}
