import { idMatcher, toolsetPredicate } from '../composition/toolsets/toolset-predicate.js';
import { normalizeTags } from '../foundation/model/tags.js';
import type { Tool } from '../foundation/model/tool.js';
import type { ApertureConfig } from './config-schema.js';
import { formatConfigPath } from './interpolate.js';

const GLOB = /[*?[\]{}!]/;

/**
 * Warnings for toolsets that name a tool by its exact id in `tools` although their other
 * conditions keep it out — every condition must hold, so such an entry does nothing: its namespace
 * is not in `namespaces`, `exclude` matches it, or (for built-in tools, whose tags and annotations
 * are known before start) it has none of the `tags` or lacks a required annotation.
 */
export async function toolsetWarnings(config: ApertureConfig): Promise<string[]> {
  const toolsets = config.toolsets;
  if (toolsets.length === 0) return [];
  const builtins = config.tools.builtin ? await builtinCatalog() : new Map<string, Tool>();
  const warnings: string[] = [];
  for (const [index, toolset] of toolsets.entries()) {
    const admits = toolsetPredicate(toolset);
    const excluded = idMatcher(toolset.exclude);
    for (const [at, id] of (toolset.tools ?? []).entries()) {
      if (GLOB.test(id)) continue;
      const where = formatConfigPath(['toolsets', index, 'tools', at]);
      const [namespace = ''] = id.split(':');
      const namespaces = toolset.namespaces ?? [];
      let reason: string | undefined;
      if (namespaces.length > 0 && !namespaces.includes(namespace)) {
        reason = `its namespace "${namespace}" is not in namespaces`;
      } else if (excluded?.(id)) {
        reason = 'exclude matches it';
      } else {
        const tool = builtins.get(id);
        if (tool !== undefined && !admits(tool)) {
          const tags = normalizeTags(toolset.tags);
          reason =
            tags.length > 0 && !tool.tags.some((tag) => tags.includes(tag))
              ? `it has none of the tags [${tags.join(', ')}] (built-in tags: [${tool.tags.join(', ')}])`
              : 'it lacks an annotation the toolset requires';
        }
      }
      if (reason !== undefined) {
        warnings.push(
          `${where}: toolset "${toolset.name}" can never include "${id}": ${reason} (every condition of a toolset must hold)`,
        );
      }
    }
  }
  return warnings;
}

/** The built-in tools by id, as the toolset predicate sees them; loaded only when toolsets exist. */
async function builtinCatalog(): Promise<Map<string, Tool>> {
  const { builtinTools } = await import('../sources/builtin/builtin-tools.js');
  return new Map(
    builtinTools().map((definition) => {
      const id = `${definition.namespace}:${definition.name}`;
      const tool = {
        id,
        namespace: definition.namespace ?? '',
        tags: normalizeTags(definition.tags ?? []),
        annotations: definition.annotations ?? {},
      } as unknown as Tool;
      return [id, tool];
    }),
  );
}
