import { createHash } from 'node:crypto';
import type { Skill } from '@modelcontextprotocol/client/ext/skills';
import type { CompiledSkill } from '../../../composition/skills/compile-skill.js';
import { parseToolId } from '../../../foundation/model/tool-id.js';
import { SKILL_SCHEME, skillSlug } from './skill-uris.js';

/** `_meta` key of a configured skill's entry: the skill tool `run_skill` runs (`skill:<name>`). */
export const SKILL_TOOL_META_KEY = 'io.aperture/toolId';

/** A configured skill as a Skills extension entry, with its one file: the manifest (`<name>/SKILL.md`) text. */
export interface ConfiguredSkillEntry {
  skill: Skill;
  /** The configured skill's name (`run_skill`'s `name`). */
  name: string;
  /** The manifest text, exactly the bytes the entry's digest covers. */
  text: string;
}

/** The longest description the extension allows (Agent Skills: 1-1024 characters). */
const MAX_DESCRIPTION = 1024;

/**
 * A configured skill (a declared workflow, the tool `skill:<name>`) as an entry of the Skills
 * extension: `skill://<namespace>/<name>/SKILL.md`, the namespace being the skill tool's
 * (`skill`), the name made to follow the Agent Skills rule (`skillSlug`). Its one file is a
 * manifest (`<name>/SKILL.md`) made from the definition — frontmatter `name` and `description`, then how to run it
 * (`run_skill`), its input schema and its steps — with its SHA-256 digest and size. Undefined when
 * nothing of the name is left for the rule.
 */
export function configuredSkillEntry(skill: CompiledSkill): ConfiguredSkillEntry | undefined {
  const slug = skillSlug(skill.name);
  if (slug === '') return undefined;
  const namespace = parseToolId(skill.toolId).namespace;
  const uri = `${SKILL_SCHEME}${namespace}/${slug}/SKILL.md`;
  const description = oneLine(skill.description).slice(0, MAX_DESCRIPTION) || skill.name;
  const text = [
    '---',
    `name: ${slug}`,
    // A JSON string is a YAML double-quoted scalar: any character survives the round trip.
    `description: ${JSON.stringify(description)}`,
    '---',
    `# ${skill.title ?? skill.name}`,
    '',
    skill.description,
    '',
    '## How to run it',
    '',
    `Call the tool \`run_skill\` with \`{"name": ${JSON.stringify(skill.name)}, "inputs": {…}}\` (or run the tool \`${skill.toolId}\` with \`run_tool\`).`,
    '',
    '## Inputs',
    '',
    '```json',
    JSON.stringify(skill.input, null, 2),
    '```',
    '',
    '## Steps',
    '',
    ...skill.steps.map(
      (step, index) =>
        `${index + 1}. \`${step.id}\`: \`${step.tool}\`${step.description ? ` — ${oneLine(step.description)}` : ''}`,
    ),
    '',
  ].join('\n');
  const bytes = Buffer.from(text, 'utf8');
  return {
    name: skill.name,
    text,
    skill: {
      uri,
      frontmatter: { name: slug, description },
      resources: [
        { uri, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, size: bytes.byteLength },
      ],
      _meta: { [SKILL_TOOL_META_KEY]: skill.toolId },
    },
  };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
