import { GatewayError } from '../foundation/model/gateway-error.js';
import type {
  JsonSchema,
  Tool,
  ToolAnnotations,
  ToolExample,
  ToolMetadata,
} from '../foundation/model/tool.js';
import type { ToolUi } from '../foundation/model/tool-ui.js';
import { isRecord } from '../foundation/util/is-record.js';

/** How much `describe_tool` tells: `summary` (no schemas) < `schema` < `full` (notes, examples). */
export type DetailLevel = 'summary' | 'schema' | 'full';

/** The `tool` object of a describe result. Schemas, metadata and notes appear by level. */
export interface ToolDescription {
  id: string;
  name: string;
  namespace: string;
  /** `title`, else `annotations.title`; absent when the tool has neither. */
  title?: string;
  description: string;
  annotations: ToolAnnotations;
  tags: string[];
  /** Levels `schema` and `full`. */
  inputSchema?: JsonSchema;
  /** Levels `schema` and `full`, when the tool declares one. */
  outputSchema?: JsonSchema;
  /** Levels `schema` and `full`. */
  metadata?: ToolMetadata;
  /** Level `full`, when the tool has notes. */
  notes?: string;
  /** Levels `schema` and `full`: the source's `_meta` for the tool, as it came. */
  _meta?: Record<string, unknown>;
  /**
   * Every level, when the tool has an MCP App (SEP-1865): its `ui://` resource (as its server
   * names it; `describe_tool` names it as the client reads it) and who may see the tool.
   */
  app?: ToolUi;
}

/** The `describe_tool` result (docs/DESIGN.md §4). */
export interface DescribeResult {
  /** One line, at most {@link SUMMARY_MAX_CHARS} characters: id, first sentence, parameters. */
  summary: string;
  tool: ToolDescription;
  /** Level `full` only, capped by `examplesMax`. */
  examples?: ToolExample[];
}

/** Options of {@link describeTool}. */
export interface DescribeToolOptions {
  /** Most examples returned at level `full`. Default 5. */
  examplesMax?: number;
}

/** The search/list item shape (docs/DESIGN.md §4): no schemas. */
export interface ToolSummary {
  id: string;
  name: string;
  namespace: string;
  /** Whitespace collapsed, trimmed by {@link compactDescription} (first sentence kept whole). */
  description: string;
  tags: string[];
  score?: number;
}

export const SUMMARY_MAX_CHARS = 300;
/**
 * Default length of a search/list item's description (config `search.descriptionChars`). 160
 * characters is about 35 tokens: a page of 20 search hits stays near 1,000 tokens, and the first
 * sentence — which is what says what a tool does — is kept whole anyway.
 */
export const DEFAULT_DESCRIPTION_CHARS = 160;
const DEFAULT_EXAMPLES_MAX = 5;
// The first sentence may take about half the summary line; parameters get the rest.
const SUMMARY_SENTENCE_MAX_CHARS = 160;
const ENUM_VALUES_SHOWN = 5;

/**
 * Describes a tool at a detail level. The result shares the tool's schema objects: serialise it,
 * do not mutate it.
 */
export function describeTool(
  tool: Tool,
  level: DetailLevel,
  options: DescribeToolOptions = {},
): DescribeResult {
  if (level !== 'summary' && level !== 'schema' && level !== 'full') {
    throw new GatewayError(
      'invalid_request',
      `detail level must be summary, schema or full, got ${String(level)}`,
    );
  }
  const examplesMax = options.examplesMax ?? DEFAULT_EXAMPLES_MAX;
  if (!Number.isInteger(examplesMax) || examplesMax < 0) {
    throw new GatewayError('invalid_request', `examplesMax must be an integer ≥ 0, got ${examplesMax}`);
  }
  const description: ToolDescription = {
    id: tool.id,
    name: tool.name,
    namespace: tool.namespace,
    description: tool.description,
    annotations: { ...tool.annotations },
    tags: [...tool.tags],
  };
  const title = tool.title ?? tool.annotations.title;
  if (title !== undefined) description.title = title;
  if (tool.ui !== undefined) description.app = { ...tool.ui };
  if (level !== 'summary') {
    description.inputSchema = tool.inputSchema;
    if (tool.outputSchema !== undefined) description.outputSchema = tool.outputSchema;
    description.metadata = tool.metadata;
    if (tool.meta !== undefined) description._meta = tool.meta;
  }
  const result: DescribeResult = { summary: summaryLine(tool), tool: description };
  if (level === 'full') {
    if (tool.notes !== undefined) description.notes = tool.notes;
    result.examples = tool.examples.slice(0, examplesMax);
  }
  return result;
}

/** A tool as a search or list item: id, names, a short description, tags and the score if any. */
export function toolSummary(
  tool: Tool,
  score?: number,
  descriptionChars: number = DEFAULT_DESCRIPTION_CHARS,
): ToolSummary {
  const summary: ToolSummary = {
    id: tool.id,
    name: tool.name,
    namespace: tool.namespace,
    description: compactDescription(tool.description, descriptionChars),
    tags: [...tool.tags],
  };
  if (score !== undefined) summary.score = score;
  return summary;
}

/**
 * A description as search and list answers show it: whitespace collapsed; untouched if it fits in
 * `maxChars`; else its first sentence kept whole (it says what the tool does, so it is never cut —
 * describe_tool has the rest) followed by as many words as fit, `…` marking the cut. A "first
 * sentence" over twice `maxChars` is no sentence but a description without stops: it is cut at a
 * word like the rest, so an answer stays compact whatever the tool's author wrote.
 */
export function compactDescription(text: string, maxChars: number): string {
  const collapsed = collapse(text);
  if (collapsed.length <= maxChars) return collapsed;
  const first = firstSentence(collapsed);
  if (first.length > 2 * maxChars) return shorten(collapsed, maxChars);
  if (first.length >= collapsed.length) return first;
  const cut = shorten(collapsed, maxChars);
  // The cut may fall inside the first sentence or strip its stop; keep it whole instead.
  return cut.length > first.length && cut.startsWith(first) ? cut : `${first} …`;
}

/**
 * `id — First sentence. Parameters: a (string, required), b (x|y).` Parameters are added while
 * they fit in {@link SUMMARY_MAX_CHARS}; an ellipsis marks the ones left out.
 */
export function summaryLine(tool: Tool): string {
  const sentence = shorten(firstSentence(collapse(tool.description)), SUMMARY_SENTENCE_MAX_CHARS);
  const head = shorten(sentence === '' ? tool.id : `${tool.id} — ${sentence}`, SUMMARY_MAX_CHARS);
  const params = describeParameters(tool.inputSchema);
  if (params.length === 0) return withinBudget(`${head} No parameters.`, head);
  let line = `${head} Parameters: `;
  for (const [i, param] of params.entries()) {
    const last = i === params.length - 1;
    const next = `${line}${i === 0 ? '' : ', '}${param}${last ? '.' : ''}`;
    // Keep room for the ellipsis that says more parameters exist.
    if (next.length > (last ? SUMMARY_MAX_CHARS : SUMMARY_MAX_CHARS - 1)) {
      return i === 0 ? head : `${line}…`;
    }
    line = next;
  }
  return line;
}

/** `name (type[, required])` for each top-level property of the input schema, in declaration order. */
function describeParameters(schema: JsonSchema): string[] {
  const properties = schema.properties;
  if (!isRecord(properties)) return [];
  const required = new Set<unknown>(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries(properties).map(([name, property]) => {
    const type = isRecord(property) ? typeLabel(property) : 'any';
    return `${name} (${type}${required.has(name) ? ', required' : ''})`;
  });
}

/** A compact type: `string`, `string[]`, `svg|png|txt`, `string|null`, `object`. */
function typeLabel(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) {
    const values: unknown[] = schema.enum;
    const shown = values.slice(0, ENUM_VALUES_SHOWN).map(literal).join('|');
    return values.length > ENUM_VALUES_SHOWN ? `${shown}|…` : shown;
  }
  if ('const' in schema) return literal(schema.const);
  const type = schema.type;
  if (typeof type === 'string') {
    if (type === 'array' && isRecord(schema.items)) return `${typeLabel(schema.items)}[]`;
    return type;
  }
  if (Array.isArray(type)) {
    const types: unknown[] = type;
    return types.filter((t) => typeof t === 'string').join('|') || 'any';
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members: unknown = schema[key];
    if (Array.isArray(members)) {
      const labels = new Set((members as unknown[]).map((m) => (isRecord(m) ? typeLabel(m) : 'any')));
      return [...labels].join('|');
    }
  }
  if (isRecord(schema.properties)) return 'object';
  return 'any';
}

function literal(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Text up to the first `.`, `!` or `?` followed by a space (or the end). */
function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(?:\s|$)/.exec(text);
  return match?.[1] ?? text;
}

/** Cuts `text` to at most `max` characters at a word boundary, marking the cut with `…`. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  // A boundary too far back would waste the budget; cut mid-word instead.
  if (space > max / 2) cut = cut.slice(0, space);
  return `${cut.replace(/[\s,;:.\-–—]+$/u, '')}…`;
}

/** `text` if it fits the summary budget, else `fallback`. */
function withinBudget(text: string, fallback: string): string {
  return text.length <= SUMMARY_MAX_CHARS ? text : fallback;
}
