import type { Tool } from '../model/tool.js';
import { assertTool } from './assert-tool.js';
import { type Conversion, WarningCollector, warnDroppedFields } from './conversion.js';

/** Media types a gateway skill takes and gives: JSON arguments/results, or plain text. */
export const A2A_SKILL_MODES: readonly string[] = ['application/json', 'text/plain'];

/** An A2A `AgentSkill` (an entry of an agent card's `skills`). */
export interface A2AAgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes: string[];
  outputModes: string[];
}

/**
 * A canonical tool as an A2A skill: id = the tool id, name = its title (else its name), tags as
 * they are, examples as strings (an example's title, or the JSON of its arguments when untitled).
 * A skill has no schemas and no hints: input/output schemas and annotations are reported dropped.
 */
export function toA2ASkill(tool: Tool): Conversion<A2AAgentSkill> {
  assertTool(tool);
  const warnings = new WarningCollector(`${tool.id} (a2a)`);
  warnDroppedFields(tool, ['inputSchema', 'outputSchema', 'annotations'], warnings);
  const examples = (tool.examples ?? []).map((example) =>
    example.title.trim() !== '' ? example.title : JSON.stringify(example.args),
  );
  const skill: A2AAgentSkill = {
    id: tool.id,
    name: tool.title ?? tool.name,
    description: tool.description,
    tags: [...(tool.tags ?? [])],
    ...(examples.length > 0 && { examples }),
    inputModes: [...A2A_SKILL_MODES],
    outputModes: [...A2A_SKILL_MODES],
  };
  return { value: skill, warnings: warnings.list() };
}
