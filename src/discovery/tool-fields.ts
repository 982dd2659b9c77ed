import type { JsonSchema, Tool } from '../foundation/model/tool.js';
import { isRecord } from '../foundation/util/is-record.js';

/** The searchable text of a tool, one string per field; indexes weigh the fields differently. */
export interface ToolFields {
  name: string;
  namespace: string;
  /**
   * `title`, else `annotations.title`; empty when it only repeats the name ("Create Issue" for
   * `create_issue`), so that the same words are not counted twice as two fields.
   */
  title: string;
  description: string;
  /** Tags and `metadata.category`. */
  tags: string;
  /** Property names of the input schema, nested ones included. */
  paramNames: string;
  /** Property titles and descriptions of the input schema. */
  paramDescriptions: string;
  /** String `enum` values (and `const`s) of the input schema: the words a caller may pass. */
  enumValues: string;
  /** Queries that led to successful runs of the tool (learning from use); empty until some did. */
  learned: string;
}

/** The field names of {@link ToolFields}, in a fixed order. */
export const TOOL_FIELDS: readonly (keyof ToolFields)[] = [
  'name',
  'namespace',
  'title',
  'description',
  'tags',
  'paramNames',
  'paramDescriptions',
  'enumValues',
  'learned',
];

export interface ToolFieldsOptions {
  /** How deep nested objects and array items are walked; 1 = top-level properties only. Default 3. */
  maxDepth?: number;
  /** The tool's learned queries (see `learned-queries.ts`). */
  learned?: string;
}

// Bounds the work for pathological schemas (thousands of properties, huge enums).
const MAX_PROPERTIES = 500; // properties and combinator members visited per tool
const MAX_ENUM_VALUES = 20;

/** Extracts the searchable text of `tool`. */
export function toolFields(tool: Tool, options: ToolFieldsOptions = {}): ToolFields {
  const walk: SchemaWalk = {
    names: [],
    texts: [],
    enums: [],
    visited: 0,
    maxDepth: options.maxDepth ?? 3,
  };
  walkSchema(tool.inputSchema, 1, walk);
  const tags = tool.metadata.category === undefined ? tool.tags : [...tool.tags, tool.metadata.category];
  return {
    name: tool.name,
    namespace: tool.namespace,
    title: distinctTitle(tool.title ?? tool.annotations.title ?? '', tool.name),
    description: tool.description,
    tags: tags.join(' '),
    paramNames: walk.names.join(' '),
    paramDescriptions: walk.texts.join(' '),
    enumValues: walk.enums.join(' '),
    learned: options.learned ?? '',
  };
}

function distinctTitle(title: string, name: string): string {
  const compact = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  return compact(title) === compact(name) ? '' : title;
}

interface SchemaWalk {
  names: string[];
  texts: string[];
  enums: string[];
  visited: number;
  maxDepth: number;
}

/** Walks `properties` at `depth`, descending into object properties, array items and combinators. */
function walkSchema(schema: unknown, depth: number, walk: SchemaWalk): void {
  if (!isRecord(schema) || depth > walk.maxDepth) return;
  const properties = schema.properties;
  if (isRecord(properties)) {
    for (const [name, property] of Object.entries(properties)) {
      if (walk.visited++ >= MAX_PROPERTIES) return;
      walk.names.push(name);
      if (!isRecord(property)) continue;
      collectText(property, walk);
      walkSchema(property, depth + 1, walk);
      walkItems(property.items, depth + 1, walk);
    }
  }
  // Combinators describe the same level (zod's optional/nullable shapes, discriminated unions).
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const members: unknown = schema[key];
    if (!Array.isArray(members)) continue;
    for (const member of members as unknown[]) {
      // Counted too, so that even a cyclic object graph terminates.
      if (walk.visited++ >= MAX_PROPERTIES) return;
      if (isRecord(member)) {
        collectText(member, walk);
        walkSchema(member, depth, walk);
        walkItems(member.items, depth, walk);
      }
    }
  }
}

function walkItems(items: unknown, depth: number, walk: SchemaWalk): void {
  const list: unknown[] = Array.isArray(items) ? items : [items];
  for (const item of list) {
    if (!isRecord(item)) continue;
    collectText(item, walk);
    walkSchema(item, depth, walk);
  }
}

function collectText(schema: JsonSchema, walk: SchemaWalk): void {
  if (typeof schema.title === 'string') walk.texts.push(schema.title);
  if (typeof schema.description === 'string') walk.texts.push(schema.description);
  if (Array.isArray(schema.enum)) {
    const values: unknown[] = schema.enum;
    for (const value of values.slice(0, MAX_ENUM_VALUES))
      if (typeof value === 'string') walk.enums.push(value);
  }
  if (typeof schema.const === 'string') walk.enums.push(schema.const);
}
