import { normalizeTags } from '../foundation/tags.js';
import type { JsonSchema, Tool, ToolAnnotations } from '../foundation/tool.js';
import type { ToolBackend } from '../foundation/tool-backend.js';
import { formatToolId } from '../foundation/tool-id.js';
import type { CatalogEntry } from './catalog-entry.js';

/** What an override may change of a tool (the `overrides` config section, docs/DESIGN.md §4). */
export interface ToolOverride {
  /** A new name; the id becomes `namespace:name`, calls still reach the original name. */
  name?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  /** Neither listed, searched nor runnable. */
  hidden?: boolean | undefined;
  /** Merged over the tool's own annotations. */
  annotations?: ToolAnnotations | undefined;
  /** Added to the tool's own tags. */
  tags?: string[] | undefined;
  /** Per-tool timeout (the server's `timeoutMs` otherwise). */
  timeoutMs?: number | undefined;
  /** Result caching on or off for this tool, over the default (read-only or idempotent tools). */
  cache?: boolean | undefined;
  args?:
    | {
        /** Always sent; removed from the schema the caller sees. */
        fixed?: Record<string, unknown> | undefined;
        /** Filled in when the caller leaves them out; no longer required of the caller. */
        defaults?: Record<string, unknown> | undefined;
      }
    | undefined;
}

/**
 * Overrides keyed `*`, `namespace`, `namespace:tool` or `namespace:tool:version` (original names).
 * For each tool the matching rules are merged from least to most specific, so `ns:tool` beats
 * `ns` beats `*` field by field; annotations and argument maps merge key by key, tags accumulate.
 */
export class ToolOverrides {
  private readonly rules: ReadonlyMap<string, ToolOverride>;

  constructor(rules: Readonly<Record<string, ToolOverride>> = {}) {
    this.rules = new Map(Object.entries(rules));
  }

  get empty(): boolean {
    return this.rules.size === 0;
  }

  /** The merged override for `tool`, or undefined when no rule matches. */
  resolve(tool: Pick<Tool, 'namespace' | 'name' | 'version'>): ToolOverride | undefined {
    const keys = ['*', tool.namespace, `${tool.namespace}:${tool.name}`];
    if (tool.version !== undefined) keys.push(`${tool.namespace}:${tool.name}:${tool.version}`);
    let merged: ToolOverride | undefined;
    for (const key of keys) {
      const rule = this.rules.get(key);
      if (rule) merged = merged ? mergeOverride(merged, rule) : rule;
    }
    return merged;
  }

  /** The entry as callers see it, or undefined when it is hidden. Untouched entries are returned as they are. */
  apply(entry: CatalogEntry): CatalogEntry | undefined {
    const rule = this.resolve(entry.tool);
    if (!rule) return entry;
    if (rule.hidden === true) return undefined;
    const original = entry.tool;
    const tool: Tool = { ...original, annotations: { ...original.annotations, ...rule.annotations } };
    if (rule.name !== undefined && rule.name !== original.name) {
      tool.name = rule.name;
      tool.id = formatToolId({
        namespace: original.namespace,
        name: rule.name,
        ...(original.version === undefined ? {} : { version: original.version }),
      });
    }
    if (rule.title !== undefined) tool.title = rule.title;
    if (rule.description !== undefined) tool.description = rule.description;
    if (rule.tags) tool.tags = normalizeTags([...original.tags, ...rule.tags]);
    if (rule.timeoutMs !== undefined || rule.cache !== undefined) {
      // Both travel in `metadata.extra`, read by the pipeline (timeoutMs) and the result cache.
      const extra: Record<string, unknown> = { ...original.metadata.extra };
      if (rule.timeoutMs !== undefined) extra.timeoutMs = rule.timeoutMs;
      if (rule.cache !== undefined) extra.cache = rule.cache;
      tool.metadata = { ...original.metadata, extra };
    }
    const fixed = rule.args?.fixed ?? {};
    const defaults = rule.args?.defaults ?? {};
    const touchesArgs = Object.keys(fixed).length > 0 || Object.keys(defaults).length > 0;
    if (touchesArgs) tool.inputSchema = visibleSchema(original.inputSchema, fixed, defaults);
    if (!touchesArgs && tool.id === original.id) return { tool, backend: entry.backend };
    return { tool, backend: overriddenBackend(entry.backend, original, fixed, defaults) };
  }
}

function mergeOverride(base: ToolOverride, over: ToolOverride): ToolOverride {
  const merged: ToolOverride = { ...base, ...over };
  if (base.annotations || over.annotations) merged.annotations = { ...base.annotations, ...over.annotations };
  if (base.tags || over.tags) merged.tags = [...(base.tags ?? []), ...(over.tags ?? [])];
  if (base.args || over.args) {
    merged.args = {
      fixed: { ...base.args?.fixed, ...over.args?.fixed },
      defaults: { ...base.args?.defaults, ...over.args?.defaults },
    };
  }
  return merged;
}

/** The input schema without the fixed arguments, with the defaulted ones optional and documented. */
function visibleSchema(
  schema: JsonSchema,
  fixed: Record<string, unknown>,
  defaults: Record<string, unknown>,
): JsonSchema {
  const properties = { ...((schema.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  for (const key of Object.keys(fixed)) delete properties[key];
  for (const [key, value] of Object.entries(defaults)) {
    if (key in fixed) continue;
    properties[key] = { ...(properties[key] ?? {}), default: value };
  }
  const hidden = new Set([...Object.keys(fixed), ...Object.keys(defaults)]);
  const required = Array.isArray(schema.required)
    ? (schema.required as string[]).filter((key) => !hidden.has(key))
    : undefined;
  const next: JsonSchema = { ...schema, properties };
  if (required === undefined) delete next.required;
  else next.required = required;
  return next;
}

/** Runs the original tool with defaults filled in and fixed values forced. */
function overriddenBackend(
  inner: ToolBackend,
  original: Tool,
  fixed: Record<string, unknown>,
  defaults: Record<string, unknown>,
): ToolBackend {
  return {
    execute: (_tool, args, ctx) => inner.execute(original, { ...defaults, ...args, ...fixed }, ctx),
  };
}
