import type { Tool } from '../../foundation/model/tool.js';
import { globMatcher } from '../../foundation/schema/glob-matcher.js';
import type { ToolCacheSettings } from './result-cache.js';

/**
 * The result cache's per-tool settings: `cache.tools` entries (tool id or `*` glob) matching the
 * tool, later over earlier, then the tool's override (`cache: false | { enabled, ttlMs }`,
 * carried as `metadata.extra.cache` and `metadata.extra.cacheTtlMs`), which beats them all.
 * Undefined for a tool nothing sets, so it keeps the defaults (annotations, `cache.ttlMs`).
 * Worked out once per tool object (tools are immutable; a reload makes new ones).
 */
export function toolCacheSettings(
  globs: Readonly<Record<string, ToolCacheSettings>> = {},
): (tool: Tool) => ToolCacheSettings | undefined {
  const rules = Object.entries(globs).map(([pattern, settings]) => ({
    matches: globMatcher(pattern),
    settings,
  }));
  const known = new WeakMap<Tool, ToolCacheSettings | null>();
  return (tool) => {
    let settings = known.get(tool);
    if (settings === undefined) {
      settings = resolve(tool, rules);
      known.set(tool, settings);
    }
    return settings ?? undefined;
  };
}

function resolve(
  tool: Tool,
  rules: readonly { matches: (id: string) => boolean; settings: ToolCacheSettings }[],
): ToolCacheSettings | null {
  let enabled: boolean | undefined;
  let ttlMs: number | undefined;
  for (const rule of rules) {
    if (!rule.matches(tool.id)) continue;
    enabled = rule.settings.enabled ?? enabled;
    ttlMs = rule.settings.ttlMs ?? ttlMs;
  }
  const extra = tool.metadata.extra;
  if (typeof extra?.cache === 'boolean') enabled = extra.cache;
  if (typeof extra?.cacheTtlMs === 'number') ttlMs = extra.cacheTtlMs;
  if (enabled === undefined && ttlMs === undefined) return null;
  return { ...(enabled === undefined ? {} : { enabled }), ...(ttlMs === undefined ? {} : { ttlMs }) };
}
