import { normalizeTags } from '../foundation/model/tags.js';
import { hasSideEffects, type Tool } from '../foundation/model/tool.js';

/** The filters `search_tools` accepts (docs/DESIGN.md §4); all narrow, all apply before the limit. */
export interface SearchFilters {
  namespace?: string | undefined;
  /** The tool must carry every one of these tags. */
  tags?: string[] | undefined;
  category?: string | undefined;
  /** Tools with a declared cost above this are left out; tools without a cost stay. */
  max_cost?: number | undefined;
  /** Likewise for `metadata.latencyHintMs`. */
  max_latency_ms?: number | undefined;
  /** `false` leaves out tools with side effects (not read-only, unless metadata says otherwise). */
  allow_side_effects?: boolean | undefined;
}

/** Compiles filters into one predicate (tags normalised once, not per tool). */
export function filterPredicate(filters: SearchFilters): ((tool: Tool) => boolean) | undefined {
  const checks: ((tool: Tool) => boolean)[] = [];
  if (filters.namespace !== undefined) checks.push((t) => t.namespace === filters.namespace);
  const tags = normalizeTags(filters.tags);
  if (tags.length > 0) checks.push((t) => tags.every((tag) => t.tags.includes(tag)));
  if (filters.category !== undefined) {
    const category = filters.category.toLowerCase();
    checks.push((t) => t.metadata.category?.toLowerCase() === category);
  }
  if (filters.max_cost !== undefined) {
    const max = filters.max_cost;
    checks.push((t) => t.metadata.cost === undefined || t.metadata.cost <= max);
  }
  if (filters.max_latency_ms !== undefined) {
    const max = filters.max_latency_ms;
    checks.push((t) => t.metadata.latencyHintMs === undefined || t.metadata.latencyHintMs <= max);
  }
  if (filters.allow_side_effects === false) checks.push((t) => !hasSideEffects(t));
  if (checks.length === 0) return undefined;
  return (tool) => checks.every((check) => check(tool));
}

/** Both predicates (either may be absent). */
export function andPredicates(
  a: ((tool: Tool) => boolean) | undefined,
  b: ((tool: Tool) => boolean) | undefined,
): ((tool: Tool) => boolean) | undefined {
  if (!a) return b;
  if (!b) return a;
  return (tool) => a(tool) && b(tool);
}
