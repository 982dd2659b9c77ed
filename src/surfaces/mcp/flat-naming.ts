import { flatToolName } from '../../foundation/model/flat-name.js';
import type { Tool } from '../../foundation/model/tool.js';
import type { Logger } from '../../foundation/ports/logger.js';

export interface FlatNamingOptions {
  /** Namespaces whose tools keep their own names (servers with `prefix: false`). */
  unprefixed?: ReadonlySet<string>;
  /** Namespaces in config order: on a name collision the earlier one wins. Others come first. */
  order?: readonly string[];
  log?: Logger;
}

/**
 * Names of tools in flat exposure (docs/DESIGN.md §2): `namespace__name`, or the tool's own name for a
 * server with `prefix: false` — a pure function of (namespace, name, config). Two tools that end
 * up with one name cannot both be listed: the first configured server keeps it and the dropped
 * ones are logged (once each).
 */
export class FlatNaming {
  private unprefixed: ReadonlySet<string>;
  private rank: Map<string, number>;
  private readonly reported = new Set<string>();

  constructor(private readonly options: FlatNamingOptions = {}) {
    this.unprefixed = options.unprefixed ?? new Set();
    this.rank = new Map((options.order ?? []).map((namespace, index) => [namespace, index]));
  }

  /**
   * Takes the servers of a reloaded config. Exposures recompute their names when the catalog
   * changes, which adding, removing or changing a server always does.
   */
  reconfigure(options: Pick<FlatNamingOptions, 'unprefixed' | 'order'>): void {
    this.unprefixed = options.unprefixed ?? new Set();
    this.rank = new Map((options.order ?? []).map((namespace, index) => [namespace, index]));
  }

  /** The flat name of one tool. */
  nameOf(tool: Pick<Tool, 'namespace' | 'name'>): string {
    return flatToolName(tool.namespace, tool.name, { prefix: !this.unprefixed.has(tool.namespace) });
  }

  /** Flat name → tool for `tools`, collisions resolved by config order. */
  assign(tools: readonly Tool[]): Map<string, Tool> {
    const ordered = [...tools].sort((a, b) => this.rankOf(a) - this.rankOf(b));
    const names = new Map<string, Tool>();
    for (const tool of ordered) {
      const name = this.nameOf(tool);
      const holder = names.get(name);
      if (holder === undefined) {
        names.set(name, tool);
        continue;
      }
      const key = `${name}\u0000${tool.id}`;
      if (!this.reported.has(key)) {
        this.reported.add(key);
        this.options.log?.warn(
          { name, kept: holder.id, dropped: tool.id },
          'flat tool name already taken by an earlier server; tool dropped from flat exposure',
        );
      }
    }
    return names;
  }

  private rankOf(tool: Tool): number {
    return this.rank.get(tool.namespace) ?? -1;
  }
}
