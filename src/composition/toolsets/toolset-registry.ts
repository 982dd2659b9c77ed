import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { type ScopeDeps, type ToolPage, ToolScope } from '../tool-scope.js';
import type { ToolsetDefinition } from './toolset-definition.js';
import { toolsetPredicate } from './toolset-predicate.js';

/** What a request asks for: who is calling, and the toolset it narrows to, if any. */
export interface ScopeRequest {
  caller: CallerContext;
  /** `/mcp/{toolset}` or `?toolset=`. */
  toolset?: string;
}

/**
 * Resolves the scope a request works in. Throws `not_found` for an unknown toolset and
 * `forbidden` for a toolset the caller is not granted.
 */
export type ScopeResolver = (request: ScopeRequest) => ToolScope;

/** One toolset as `list_toolsets` shows it. */
export interface ToolsetSummary {
  name: string;
  description?: string;
  /** Members in the current catalog. */
  toolCount: number;
  /** The MCP endpoint serving only this toolset (relative to the gateway's base URL). */
  endpoint: string;
}

/** `describe_toolset`: the definition, the member count and one page of members. */
export interface ToolsetDescription extends ToolPage {
  toolset: ToolsetSummary & { definition: Omit<ToolsetDefinition, 'name' | 'description'> };
}

/** The toolsets one caller may use (what the toolset metatools answer from). */
export interface ToolsetView {
  list(): ToolsetSummary[];
  describe(
    name: string,
    page?: { limit?: number | undefined; cursor?: string | undefined },
  ): ToolsetDescription;
}

/**
 * What hides tools from one caller beyond its toolsets (the policy rules, `policies.hideDenied`).
 * `visibilityKey` is undefined when nothing can hide anything (the shared scopes are handed out
 * as they are); otherwise callers with the same key see the same tools.
 */
export interface CallerVisibility {
  visibilityKey(caller: CallerContext): string | undefined;
  hides(tool: Tool, caller: CallerContext): boolean;
}

export interface ToolsetRegistryOptions {
  /** The unconfined scope (whole catalog); made from `deps` when not given. */
  base?: ToolScope;
  /** Per-caller hiding; default none. */
  visibility?: CallerVisibility;
}

/** Union scopes kept for reuse; callers with JWT claims could otherwise make one per request. */
const MAX_CACHED_UNIONS = 256;

/**
 * The configured toolsets and the scopes made from them: one `ToolScope` per toolset (a predicate
 * over `Tool`, so membership follows the live catalog) and one per set of granted toolsets (their
 * union). Every surface asks it for the scope of its caller, so a caller confined to toolsets
 * reaches nothing else anywhere; `authorize` repeats the check in the run pipeline.
 */
export class ToolsetRegistry {
  readonly base: ToolScope;
  private readonly definitions = new Map<string, ToolsetDefinition>();
  private readonly predicates = new Map<string, (tool: Tool) => boolean>();
  private readonly scopes = new Map<string, ToolScope>();
  private readonly unions = new Map<string, ToolScope>();
  /** Scopes narrowed for one kind of caller, kept so per-scope caches (cards, documents) hit. */
  private readonly narrowed = new Map<string, ToolScope>();
  private readonly visibility: CallerVisibility | undefined;

  constructor(
    private readonly deps: ScopeDeps,
    definitions: readonly ToolsetDefinition[],
    options: ToolsetRegistryOptions = {},
  ) {
    this.base = options.base ?? new ToolScope(deps);
    this.visibility = options.visibility;
    this.replace(definitions);
  }

  /**
   * Takes new definitions (a config reload). Scopes handed out before follow them: each asks for
   * its toolset's predicate on every use, so a session on a changed toolset sees the new members
   * and one on a removed toolset sees nothing (never more than it was granted).
   */
  replace(definitions: readonly ToolsetDefinition[]): void {
    const next = new Map<string, ToolsetDefinition>();
    for (const [index, definition] of definitions.entries()) {
      if (next.has(definition.name)) {
        throw new GatewayError(
          'config_invalid',
          `toolsets[${index}]: duplicate toolset name "${definition.name}"`,
          {
            details: { path: `toolsets.${index}.name` },
          },
        );
      }
      next.set(definition.name, definition);
    }
    this.definitions.clear();
    this.predicates.clear();
    this.narrowed.clear();
    for (const name of this.scopes.keys()) if (!next.has(name)) this.scopes.delete(name);
    for (const [name, definition] of next) {
      this.definitions.set(name, definition);
      this.predicates.set(name, toolsetPredicate(definition));
      if (!this.scopes.has(name)) {
        this.scopes.set(
          name,
          new ToolScope(this.deps, { name, isVisible: (tool) => this.member(name, tool) }),
        );
      }
    }
  }

  /** True when `tool` is in toolset `name` as defined now (false for a toolset that is gone). */
  private member(name: string, tool: Tool): boolean {
    return this.predicates.get(name)?.(tool) === true;
  }

  /** Toolset names in config order. */
  get names(): string[] {
    return [...this.definitions.keys()];
  }

  get size(): number {
    return this.definitions.size;
  }

  has(name: string): boolean {
    return this.definitions.has(name);
  }

  /** The scope of one toolset; `not_found` when there is none of that name. */
  scope(name: string): ToolScope {
    const scope = this.scopes.get(name);
    if (!scope) {
      throw new GatewayError('not_found', `No toolset "${name}"`, {
        details: { toolset: name },
        hint: 'find_toolset',
      });
    }
    return scope;
  }

  /** The scope of a request (see {@link ScopeResolver}), narrowed by what hides tools from its caller. */
  readonly resolve: ScopeResolver = (request) => this.forCaller(this.shared(request), request.caller);

  /** `scope` without the tools hidden from `caller` (the same object when nothing hides any). */
  private forCaller(scope: ToolScope, caller: CallerContext): ToolScope {
    const key = this.visibility?.visibilityKey(caller);
    if (key === undefined || !this.visibility) return scope;
    const cacheKey = `${scope.name ?? ''}\u0000${key}`;
    let narrowed = this.narrowed.get(cacheKey);
    if (!narrowed) {
      const visibility = this.visibility;
      narrowed = scope.narrow((tool) => !visibility.hides(tool, caller));
      if (this.narrowed.size >= MAX_CACHED_UNIONS) this.narrowed.clear();
      this.narrowed.set(cacheKey, narrowed);
    }
    return narrowed;
  }

  private shared({ caller, toolset }: ScopeRequest): ToolScope {
    const grants = caller.toolsets;
    if (toolset !== undefined) {
      const scope = this.scope(toolset);
      if (grants !== undefined && !grants.includes(toolset)) throw notGranted(caller, toolset);
      return scope;
    }
    if (grants === undefined) return this.base;
    return this.union(grants);
  }

  /**
   * The pipeline's authorize stage: a confined caller may run only members of its toolsets (and
   * of the toolset it narrowed to). Scopes already hide other tools; this guards any path that
   * reaches the pipeline with a caller but without its scope. Fails as `tool_not_found`, as the
   * scope would: for that caller the tool does not exist.
   */
  authorize(tool: Tool, caller: CallerContext): void {
    const member = (name: string) => this.member(name, tool);
    const narrowed = caller.toolset === undefined || member(caller.toolset);
    const granted = caller.toolsets === undefined || caller.toolsets.some(member);
    if (!narrowed || !granted) {
      throw new GatewayError('tool_not_found', `No tool "${tool.id}"`, {
        toolId: tool.id,
        hint: 'find_tool',
      });
    }
  }

  /** Names among `names` that are not toolsets (for config checks). */
  unknown(names: readonly string[]): string[] {
    return names.filter((name) => !this.definitions.has(name));
  }

  /** The toolsets `caller` may use: all of them when unconfined, else its grants. */
  viewFor(caller: CallerContext): ToolsetView {
    const visible = () =>
      [...this.definitions.values()].filter(
        (d) => caller.toolsets === undefined || caller.toolsets.includes(d.name),
      );
    return {
      list: () => visible().map((definition) => this.summary(definition)),
      describe: (name, page = {}) => {
        const scope = this.resolve({ caller, toolset: name });
        const definition = this.definitions.get(name) as ToolsetDefinition;
        const { name: _name, description: _description, ...conditions } = definition;
        return {
          toolset: { ...this.summary(definition), definition: conditions },
          ...scope.list(page),
        };
      },
    };
  }

  private summary(definition: ToolsetDefinition): ToolsetSummary {
    const summary: ToolsetSummary = {
      name: definition.name,
      toolCount: this.scope(definition.name).tools().length,
      endpoint: `/mcp/${definition.name}`,
    };
    if (definition.description !== undefined) summary.description = definition.description;
    return summary;
  }

  /** The scope of several toolsets at once: a tool is visible when any of them holds it. */
  private union(grants: readonly string[]): ToolScope {
    const names = [...new Set(grants.filter((name) => this.definitions.has(name)))].sort();
    if (names.length === 1) return this.scope(names[0] as string);
    const key = names.join('+');
    let scope = this.unions.get(key);
    if (!scope) {
      // No known toolset granted: an empty scope, never the whole catalog.
      scope = new ToolScope(this.deps, {
        name: key === '' ? '(none)' : key,
        isVisible: (tool) => names.some((name) => this.member(name, tool)),
      });
      if (this.unions.size >= MAX_CACHED_UNIONS) this.unions.clear();
      this.unions.set(key, scope);
    }
    return scope;
  }
}

function notGranted(caller: CallerContext, toolset: string): GatewayError {
  return new GatewayError('forbidden', `"${caller.identity}" is not granted toolset "${toolset}"`, {
    details: { toolset },
  });
}
