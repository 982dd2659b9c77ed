import type { Tool } from '../foundation/model/tool.js';
import { isModelVisible } from '../foundation/model/tool-ui.js';

/** A predicate over tools; undefined accepts every tool. */
export type ToolFilter = ((tool: Tool) => boolean) | undefined;

/**
 * What search shows the model: `filter`, without the app-only tools of MCP Apps (`visibility`
 * without `"model"`), which an app calls by name and a model must never be offered. Tracks one
 * catalog version at a time: a catalog with no app-only tool — nearly every one — keeps
 * `filter` as it is (often undefined, which the indexes serve on their fastest path), so the
 * check costs one scan per catalog change, not a predicate per candidate per search.
 */
export class ModelFacingFilter {
  private seen: { version: number; hidden: boolean } | undefined;

  /** `filter` narrowed to the tools the model may see, for the catalog at `version`. */
  of(filter: ToolFilter, version: number, tools: () => readonly Tool[]): ToolFilter {
    if (this.seen?.version !== version) {
      this.seen = { version, hidden: tools().some((tool) => !isModelVisible(tool)) };
    }
    if (!this.seen.hidden) return filter;
    return filter ? (tool) => isModelVisible(tool) && filter(tool) : isModelVisible;
  }
}
