import { normalizeTags } from '../foundation/model/tags.js';
import type {
  JsonSchema,
  Tool,
  ToolAnnotations,
  ToolExample,
  ToolMetadata,
} from '../foundation/model/tool.js';
import { formatToolId } from '../foundation/model/tool-id.js';
import type { ToolBackend } from '../foundation/ports/tool-backend.js';
import { isRecord } from '../foundation/util/is-record.js';
import { applyMergePatch } from '../foundation/util/json-merge-patch.js';
import { ownValue, setOwn } from '../foundation/util/own-key.js';
import type { CatalogEntry } from './catalog-entry.js';

/** The facts an override may set for ranking, filtering and the agent's reading. */
export interface ToolOverrideMetadata {
  category?: string | undefined;
  /** Relative cost of one call (lower is cheaper); `search_tools` filters on it (`max_cost`). */
  cost?: number | undefined;
  /** Typical duration of one call, ms (`max_latency_ms`). */
  latencyMs?: number | undefined;
  /** Whether a call changes anything (`allow_side_effects`); over what `readOnlyHint` implies. */
  sideEffects?: boolean | undefined;
  /** Free text shown by `describe_tool` at level `full`. */
  notes?: string | undefined;
}

/** A JSON merge patch (RFC 7396) on a schema, or several applied in order (merged rules). */
export type SchemaPatch = JsonSchema | readonly JsonSchema[];

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
  /**
   * Result caching on or off for this tool, over the default (read-only or idempotent tools), or
   * `{ enabled, ttlMs }`: either or both, `ttlMs` over `cache.ttlMs`.
   */
  cache?: boolean | { enabled?: boolean | undefined; ttlMs?: number | undefined } | undefined;
  args?:
    | {
        /** Always sent; removed from the schema the caller sees. */
        fixed?: Record<string, unknown> | undefined;
        /** Filled in when the caller leaves them out; no longer required of the caller. */
        defaults?: Record<string, unknown> | undefined;
      }
    | undefined;
  /**
   * A merge patch on the downstream input schema: rewrite descriptions, fix types, add enums, drop
   * a property (`null`: it is never sent) or pin one (`const`, or a new `default`: filled in when
   * the caller leaves it out). The downstream still gets arguments in its own shape.
   */
  inputSchema?: SchemaPatch | undefined;
  /** A merge patch on the output schema (the whole schema when the tool declares none). */
  outputSchema?: SchemaPatch | undefined;
  /**
   * How a text answer becomes the structured content the output schema describes: `{ text: <field> }`
   * puts the text in that field. Without it, text that is a JSON object is taken as it is.
   */
  outputAdapter?: { text: string } | undefined;
  /**
   * Other tool ids that do the same job: a call goes to the first healthy one of the tool and
   * these, in order, failing over on `backend_unavailable` only (never on a caller's error).
   */
  alternatives?: string[] | undefined;
  /** Replace the tool's examples. */
  examples?: { title: string; args: Record<string, unknown>; resultHint?: string | undefined }[] | undefined;
  /** Merged key by key over the tool's own metadata. */
  metadata?: ToolOverrideMetadata | undefined;
}

/**
 * Overrides keyed `*`, `namespace`, `namespace:tool` or `namespace:tool:version` (original names).
 * For each tool the matching rules are merged from least to most specific, so `ns:tool` beats
 * `ns` beats `*` field by field ({@link mergeOverride}): annotations, metadata and argument maps
 * merge key by key, tags accumulate, schema patches apply in that order, examples replace.
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
    if (
      rule.timeoutMs !== undefined ||
      rule.cache !== undefined ||
      rule.outputAdapter !== undefined ||
      rule.alternatives !== undefined
    ) {
      // They travel in `metadata.extra`, read by the pipeline (timeoutMs, outputAdapter, alternatives) and the result cache.
      const extra: Record<string, unknown> = { ...original.metadata.extra };
      if (rule.timeoutMs !== undefined) extra.timeoutMs = rule.timeoutMs;
      if (typeof rule.cache === 'boolean') extra.cache = rule.cache;
      else if (rule.cache !== undefined) {
        if (rule.cache.enabled !== undefined) extra.cache = rule.cache.enabled;
        if (rule.cache.ttlMs !== undefined) extra.cacheTtlMs = rule.cache.ttlMs;
      }
      if (rule.outputAdapter !== undefined) extra.outputAdapter = { ...rule.outputAdapter };
      if (rule.alternatives !== undefined) extra.alternatives = [...rule.alternatives];
      tool.metadata = { ...original.metadata, extra };
    }
    if (rule.metadata) applyMetadata(tool, rule.metadata);
    if (rule.examples) {
      tool.examples = rule.examples.map(
        ({ title, args, resultHint }): ToolExample => ({
          title,
          args,
          ...(resultHint === undefined ? {} : { resultHint }),
        }),
      );
    }
    if (rule.outputSchema !== undefined) {
      // MCP requires an object root for output schemas too: a patch on none starts from one.
      tool.outputSchema = patchSchema(original.outputSchema ?? { type: 'object' }, rule.outputSchema);
    }
    const patched =
      rule.inputSchema === undefined ? undefined : patchedInput(original.inputSchema, rule.inputSchema);
    if (patched) tool.inputSchema = patched.schema;
    const fixed = rule.args?.fixed ?? {};
    const defaults = rule.args?.defaults ?? {};
    const touchesArgs = Object.keys(fixed).length > 0 || Object.keys(defaults).length > 0;
    if (touchesArgs) tool.inputSchema = visibleSchema(tool.inputSchema, fixed, defaults);
    const reshapes = touchesArgs || patched?.reshapes === true;
    if (!reshapes && tool.id === original.id) return { tool, backend: entry.backend };
    const shape: ArgumentShape = {
      dropped: patched?.dropped ?? [],
      filled: { ...patched?.filled, ...defaults },
      fixed,
    };
    return { tool, backend: overriddenBackend(entry.backend, original, shape) };
  }
}

/**
 * Merges two rules, `over` winning field by field: annotations, metadata and argument maps merge key
 * by key, tags accumulate, schema patches apply one after the other (so the broader rule's patch is
 * applied first and the more specific one sees its result — a deletion included).
 */
export function mergeOverride(base: ToolOverride, over: ToolOverride): ToolOverride {
  const merged: ToolOverride = { ...base, ...over };
  if (typeof base.cache === 'object' && typeof over.cache === 'object') {
    merged.cache = { ...base.cache, ...over.cache };
  }
  if (base.annotations || over.annotations) merged.annotations = { ...base.annotations, ...over.annotations };
  if (base.metadata || over.metadata) merged.metadata = { ...base.metadata, ...over.metadata };
  if (base.tags || over.tags) merged.tags = [...(base.tags ?? []), ...(over.tags ?? [])];
  if (base.inputSchema || over.inputSchema) {
    merged.inputSchema = [...patchList(base.inputSchema), ...patchList(over.inputSchema)];
  }
  if (base.outputSchema || over.outputSchema) {
    merged.outputSchema = [...patchList(base.outputSchema), ...patchList(over.outputSchema)];
  }
  if (base.args || over.args) {
    merged.args = {
      fixed: { ...base.args?.fixed, ...over.args?.fixed },
      defaults: { ...base.args?.defaults, ...over.args?.defaults },
    };
  }
  return merged;
}

function patchList(patch: SchemaPatch | undefined): readonly JsonSchema[] {
  if (patch === undefined) return [];
  return Array.isArray(patch) ? patch : [patch as JsonSchema];
}

function patchSchema(schema: JsonSchema, patch: SchemaPatch): JsonSchema {
  let result: unknown = schema;
  for (const step of patchList(patch)) result = applyMergePatch(result, step);
  return isRecord(result) ? result : {};
}

/** Override metadata in the canonical fields: `latencyMs` → `latencyHintMs`, `sideEffects` → `sideEffect`, `notes` → `tool.notes`. */
function applyMetadata(tool: Tool, over: ToolOverrideMetadata): void {
  const metadata: ToolMetadata = { ...tool.metadata };
  if (over.category !== undefined) metadata.category = over.category;
  if (over.cost !== undefined) metadata.cost = over.cost;
  if (over.latencyMs !== undefined) metadata.latencyHintMs = over.latencyMs;
  if (over.sideEffects !== undefined) metadata.sideEffect = over.sideEffects;
  tool.metadata = metadata;
  if (over.notes !== undefined) tool.notes = over.notes;
}

/** How arguments are turned back into what the downstream expects before the call. */
interface ArgumentShape {
  /** Top-level properties the patch removed: taken out of whatever the caller sent. */
  dropped: readonly string[];
  /** Values used when the caller leaves the argument out. */
  filled: Record<string, unknown>;
  /** Values always sent. */
  fixed: Record<string, unknown>;
}

interface PatchedInput {
  schema: JsonSchema;
  dropped: string[];
  filled: Record<string, unknown>;
  /** Whether the arguments need reshaping at all (something dropped or filled). */
  reshapes: boolean;
}

/**
 * The input schema after the patches, and what that means for the call: a top-level property the
 * patches removed is dropped from the arguments (and from `required`); one they pin with `const`,
 * or give a `default` the downstream schema did not have, is filled in when absent and is no
 * longer required of the caller — the downstream, which never saw the patch, still gets it.
 */
function patchedInput(original: JsonSchema, patch: SchemaPatch): PatchedInput {
  // A copy: with no patch steps the result is the downstream's own schema, never to be changed.
  const schema = { ...patchSchema(original, patch) };
  const before = propertiesOf(original);
  const after = propertiesOf(schema);
  const dropped = Object.keys(before).filter((key) => !Object.hasOwn(after, key));
  const filled: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(after)) {
    if (!isRecord(property)) continue;
    const declared = ownValue(before, key);
    const own = isRecord(declared) ? (declared as JsonSchema) : {};
    // Only what the patch added: a `const` or `default` the downstream declared itself it knows.
    if ('const' in property && !('const' in own && own.const === property.const))
      setOwn(filled, key, property.const);
    else if ('default' in property && !('default' in own && own.default === property.default)) {
      setOwn(filled, key, property.default);
    }
  }
  const hidden = new Set([...dropped, ...Object.keys(filled)]);
  if (Array.isArray(schema.required) && hidden.size > 0) {
    schema.required = (schema.required as unknown[]).filter((key) => !hidden.has(String(key)));
  }
  return { schema, dropped, filled, reshapes: hidden.size > 0 };
}

function propertiesOf(schema: JsonSchema): Record<string, unknown> {
  return isRecord(schema.properties) ? schema.properties : {};
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
    if (Object.hasOwn(fixed, key)) continue;
    setOwn(properties, key, { ...(ownValue(properties, key) as JsonSchema | undefined), default: value });
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

/** Runs the original tool with dropped properties removed, absent ones filled in and fixed values forced. */
function overriddenBackend(inner: ToolBackend, original: Tool, shape: ArgumentShape): ToolBackend {
  return {
    execute: (_tool, args, ctx) => {
      const given: Record<string, unknown> = { ...args };
      for (const key of shape.dropped) delete given[key];
      return inner.execute(original, { ...shape.filled, ...given, ...shape.fixed }, ctx);
    },
  };
}
