import type { Tool } from '../foundation/model/tool.js';
import type { ToolBackend } from '../foundation/ports/tool-backend.js';

/** A tool as the catalog holds it: its canonical description and the backend that runs it. */
export interface CatalogEntry {
  readonly tool: Tool;
  readonly backend: ToolBackend;
}

/** What changed in one (debounced) batch of catalog mutations. */
export interface CatalogChange {
  /** Catalog version after the batch. */
  version: number;
  added: string[];
  removed: string[];
  updated: string[];
}
