import { isDeepStrictEqual } from 'node:util';
import type { SearchStack } from '../composition/search-stack.js';
import type { ScopeDeps } from '../composition/tool-scope.js';
import type { ApertureConfig } from '../config/config-schema.js';
import { usesVectors } from '../discovery/tool-search.js';
import type { RunMiddleware } from '../foundation/ports/run-middleware.js';

type SearchSettings = ApertureConfig['search'];

/**
 * The search stack in force, replaceable by a reload. Every scope shares one `ScopeDeps` object and
 * reads its `search` on each call, so setting it there reaches the scopes of open sessions; the
 * pipeline reaches the stack's feedback through `feedback`, which asks for the current one.
 */
export class LiveSearch {
  private current: SearchStack;

  constructor(
    private readonly build: (settings: SearchSettings) => SearchStack,
    settings: SearchSettings,
    /** True when an embedder was loaded at start (a vector strategy was configured then). */
    private readonly hasEmbedder: boolean,
  ) {
    this.current = build(settings);
  }

  get stack(): SearchStack {
    return this.current;
  }

  /** The run middleware of search feedback, always the current stack's. */
  readonly feedback: RunMiddleware = (call, next) => this.current.feedback(call, next);

  /**
   * Rebuilds search with new settings and points `deps` at it. What was learned is written to the
   * state store by the old stack before the new one reads it. Answers `'restart'` — changing
   * nothing — when the new settings need another embedder than the one loaded at start.
   */
  replace(before: SearchSettings, after: SearchSettings, deps: ScopeDeps): 'restart' | undefined {
    const embedderChanged = !isDeepStrictEqual(before.embedder, after.embedder);
    if (embedderChanged || (usesVectors(after.strategy) && !this.hasEmbedder)) return 'restart';
    this.current.close();
    this.current = this.build(after);
    deps.search = this.current.search;
    deps.descriptionChars = after.descriptionChars;
    deps.explain = after.explain;
    // Index now rather than on the first query.
    this.current.search.refresh();
    return undefined;
  }

  close(): void {
    this.current.close();
  }
}
