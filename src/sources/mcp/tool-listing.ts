import type { Client, Tool as McpTool } from '@modelcontextprotocol/client';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { ToolBackend } from '../../foundation/ports/tool-backend.js';
import { listAllTools } from './list-all-tools.js';
import { mcpToolEntry, toolNamesOf } from './mcp-tool-entry.js';

export interface ToolListingOptions {
  /** The server's name (the key in `servers`). */
  server: string;
  /** `mcp:<name>`: the catalog source the entries belong to. */
  sourceId: string;
  namespace: string;
  /** The per-call timeout the entries carry. */
  timeoutMs?: number;
  /** Time limit of each `tools/list` page. */
  listTimeoutMs: number;
  /** Re-list this often when the server does not announce changes; 0 never. */
  relistIntervalMs: number;
  /** What executes the listed tools (the server). */
  backend: ToolBackend;
  /** The shared connection's client, while there is one. */
  client: () => Client | undefined;
  /** Receives the server's whole tool list after each (re-)listing. */
  publish: (entries: CatalogEntry[]) => void;
  log: Logger;
}

/**
 * The tools of one downstream server: lists them through every page over the shared connection,
 * publishes them (reusing the entries of unchanged tools, so the catalog sees no change), and
 * re-lists on demand (`tools/list_changed`) or on an interval for a server that never announces
 * changes. Triggers that arrive while a listing runs coalesce into one more run.
 */
export class ToolListing {
  private listing: Promise<void> | undefined;
  private again = false;
  private published = new Map<string, { json: string; entry: CatalogEntry }>();
  /** Names listed twice already reported (once each, not on every re-listing). */
  private readonly duplicates = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ToolListingOptions) {}

  /** How many tools the last listing published. */
  get size(): number {
    return this.published.size;
  }

  /** Lists the tools (all pages) and publishes them; concurrent triggers coalesce into one more run. */
  relist(): Promise<void> {
    if (this.listing) {
      this.again = true;
      return this.listing;
    }
    this.listing = (async () => {
      try {
        do {
          this.again = false;
          await this.listOnce();
        } while (this.again);
      } finally {
        this.listing = undefined;
      }
    })();
    return this.listing;
  }

  /** Re-lists in the background; a failure is logged (`why` says which trigger) and the last list kept. */
  relistInBackground(why: string): void {
    void this.relist().catch((error) => this.options.log.warn({ err: toGatewayError(error).message }, why));
  }

  /**
   * Starts periodic re-listing for a connection whose server does not announce list changes
   * (and when an interval is configured); replaces any earlier schedule.
   */
  schedule(client: Client): void {
    this.unschedule();
    const announces = client.getServerCapabilities()?.tools?.listChanged === true;
    if (announces || this.options.relistIntervalMs <= 0) return;
    this.timer = setInterval(
      () => this.relistInBackground('periodic re-listing failed'),
      this.options.relistIntervalMs,
    );
    this.timer.unref?.();
  }

  /** Stops periodic re-listing (the connection is gone). */
  unschedule(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async listOnce(): Promise<void> {
    const client = this.options.client();
    if (!client) return;
    const tools = await listAllTools(client, {
      server: this.options.server,
      timeoutMs: this.options.listTimeoutMs,
    });
    this.publish(tools);
  }

  /** Publishes the listing, reusing the entries of unchanged tools so the catalog sees no change. */
  private publish(tools: McpTool[]): void {
    const next = new Map<string, { json: string; entry: CatalogEntry }>();
    const names = toolNamesOf(tools.map((tool) => tool.name));
    for (const tool of tools) {
      if (next.has(tool.name)) {
        this.reportDuplicate(tool.name);
        continue;
      }
      const name = names.get(tool.name) ?? tool.name;
      // The chosen name is part of what must be unchanged for the entry to be reused.
      const json = JSON.stringify([name, tool]);
      const previous = this.published.get(tool.name);
      const entry =
        previous?.json === json
          ? previous.entry
          : mcpToolEntry(tool, {
              sourceId: this.options.sourceId,
              namespace: this.options.namespace,
              ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
              backend: this.options.backend,
              name,
            });
      next.set(tool.name, { json, entry });
    }
    this.published = next;
    this.options.publish([...next.values()].map((p) => p.entry));
  }

  /** A server that lists one name twice: the first definition serves, the warning is given once. */
  private reportDuplicate(name: string): void {
    if (this.duplicates.has(name)) return;
    this.duplicates.add(name);
    this.options.log.warn(
      { server: this.options.server, tool: name },
      'the server lists this tool name twice; the first definition serves',
    );
  }
}
