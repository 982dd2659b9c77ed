import { z } from 'zod';
import { normalizeTags } from '../../foundation/model/tags.js';
import type { JsonSchema, Tool, ToolAnnotations } from '../../foundation/model/tool.js';
import { formatToolId, isValidToolName } from '../../foundation/model/tool-id.js';
import { looseObject, namespaceString, nonEmptyString } from '../../foundation/schema/config-values.js';

/*
 * What the three declared kinds (`endpoints:`, `sql:`, `commands:`) share: the keys every entry
 * may have besides its backend's, the grouping of entries into one source per namespace, and the
 * catalog tool made of an entry.
 */

/** Keys every declared tool may have, whatever runs it. */
export const DECLARED_TOOL_FIELDS = {
  description: nonEmptyString()
    .optional()
    .describe(
      'What the tool does, for the agent (search and describe read it). Default: made from the entry.',
    ),
  title: nonEmptyString()
    .optional()
    .describe("The tool's display title (its `title` and `annotations.title`)."),
  namespace: namespaceString()
    .optional()
    .describe("The tool's namespace (its id is `<namespace>:<key>`). Default: the section's name."),
  inputSchema: looseObject()
    .optional()
    .describe('JSON Schema of the arguments. Default: inferred from the templates (or query parameters).'),
  outputSchema: looseObject()
    .optional()
    .describe(
      'JSON Schema of the structured result; a result that does not match it is `validation_output`.',
    ),
  tags: z
    .array(z.string())
    .optional()
    .describe("Tags added to the tool's own (search and filters read them)."),
};

/** A section's record key: a valid tool name. */
export const declaredToolName = () =>
  z.string().refine(isValidToolName, {
    error: 'must be a tool name: 1–128 characters, no whitespace, ":" or control character',
  });

/** The keys of {@link DECLARED_TOOL_FIELDS} as parsed. */
export interface DeclaredToolFields {
  description?: string | undefined;
  title?: string | undefined;
  namespace?: string | undefined;
  inputSchema?: Record<string, unknown> | undefined;
  outputSchema?: Record<string, unknown> | undefined;
  tags?: string[] | undefined;
}

/** The tools of one namespace of a declared section: one source. */
export interface DeclaredGroup<E> {
  readonly namespace: string;
  /** The section's label for messages (`endpoints`, `sql`, `commands`). */
  readonly section: string;
  readonly tools: readonly (readonly [name: string, entry: E])[];
}

/**
 * The section's entries grouped by namespace, in first-seen order: a source per namespace, so a
 * reload restarts only the namespace whose tools changed, and the tools of one namespace share a
 * source (a connection pool, one state in `/readyz`).
 */
export function groupByNamespace<E extends DeclaredToolFields>(
  section: string,
  entries: Readonly<Record<string, E>>,
): [namespace: string, group: DeclaredGroup<E>][] {
  const groups = new Map<string, [string, E][]>();
  for (const [name, entry] of Object.entries(entries)) {
    const namespace = entry.namespace ?? section;
    let tools = groups.get(namespace);
    if (!tools) {
      tools = [];
      groups.set(namespace, tools);
    }
    tools.push([name, entry]);
  }
  return [...groups].map(([namespace, tools]) => [namespace, { namespace, section, tools }]);
}

/** What a kind says about one of its tools beyond the entry's own keys. */
export interface DeclaredToolFacts {
  sourceId: string;
  kind: string;
  namespace: string;
  name: string;
  entry: DeclaredToolFields;
  inputSchema: JsonSchema;
  /** Used when the entry has no `description`. */
  description: string;
  annotations: ToolAnnotations;
  tags: readonly string[];
  /** The tool's own time limit; the pipeline's is set a little longer so this one answers first. */
  timeoutMs: number;
  notes?: string;
}

/** Time the pipeline waits beyond a declared tool's own limit, so the tool's clearer error wins. */
const PIPELINE_GRACE_MS = 1_000;

/** The catalog tool of a declared entry. */
export function declaredTool(facts: DeclaredToolFacts): Tool {
  const { entry } = facts;
  return {
    id: formatToolId({ namespace: facts.namespace, name: facts.name }),
    namespace: facts.namespace,
    name: facts.name,
    ...(entry.title === undefined ? {} : { title: entry.title }),
    description: entry.description ?? facts.description,
    inputSchema: facts.inputSchema,
    ...(entry.outputSchema === undefined ? {} : { outputSchema: entry.outputSchema }),
    annotations: { ...(entry.title === undefined ? {} : { title: entry.title }), ...facts.annotations },
    tags: normalizeTags([...(entry.tags ?? []), ...facts.tags]),
    metadata: { extra: { timeoutMs: facts.timeoutMs + PIPELINE_GRACE_MS } },
    examples: [],
    ...(facts.notes === undefined ? {} : { notes: facts.notes }),
    origin: { sourceId: facts.sourceId, kind: facts.kind, originalName: facts.name },
  };
}
