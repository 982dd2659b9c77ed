import type { Tool, ToolAnnotations } from '../../foundation/model/tool.js';

/** The four behaviour hints of a skill tool. */
export type SkillHints = Required<Omit<ToolAnnotations, 'title'>>;

/**
 * A skill's annotations from its steps' tools, on the conservative side of every hint (MCP's
 * defaults for an unset hint are the cautious ones, and a step whose tool is not in the catalog
 * counts as the worst case):
 * - readOnlyHint only if every step's tool is read-only;
 * - destructiveHint if any step's tool is destructive — not read-only and not `destructiveHint: false` —
 *   or unknown;
 * - idempotentHint only if every step's tool is idempotent (a read-only tool has no effect to repeat);
 * - openWorldHint if any step's tool is open-world (`openWorldHint` not `false`) or unknown.
 * Every step counts, including those a `when` may skip.
 */
export function deriveSkillHints(stepTools: readonly (Tool | undefined)[]): SkillHints {
  const hints = stepTools.map((tool) => tool?.annotations);
  const readOnly = hints.every((a) => a?.readOnlyHint === true);
  const destructive = hints.some(
    (a) => a === undefined || (a.readOnlyHint !== true && a.destructiveHint !== false),
  );
  const idempotent = hints.every(
    (a) => a !== undefined && (a.readOnlyHint === true || a.idempotentHint === true),
  );
  const openWorld = hints.some((a) => a === undefined || a.openWorldHint !== false);
  return {
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: idempotent,
    openWorldHint: openWorld,
  };
}
