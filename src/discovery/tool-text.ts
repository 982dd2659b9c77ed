import type { Tool } from '../foundation/model/tool.js';
import { toolFields } from './tool-fields.js';

/** Characters of description embedded: sentence encoders read the start; the rest is noise and time. */
const MAX_DESCRIPTION = 1000;

/** `create_issue`, `getUserById` → `create issue`, `get user by id`. */
function words(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.:/]+/g, ' ')
    .toLowerCase()
    .trim();
}

/**
 * The text a tool is embedded by: where it lives (namespace, category and tags), its name in
 * words, its title, its description (cut), and its parameters with their descriptions — what a
 * person would read to decide whether the tool does what they ask. Stable for a given tool, so
 * that its hash keys the embedding cache.
 */
export function toolText(tool: Tool): string {
  const fields = toolFields(tool, { maxDepth: 1 });
  const parts = [`${words(tool.namespace)}: ${words(tool.name)}`];
  if (fields.title) parts.push(fields.title);
  if (fields.tags) parts.push(fields.tags);
  const description = fields.description.trim();
  if (description) parts.push(cut(description, MAX_DESCRIPTION));
  if (fields.paramNames) parts.push(`Parameters: ${words(fields.paramNames)}`);
  if (fields.paramDescriptions) parts.push(cut(fields.paramDescriptions, MAX_DESCRIPTION / 2));
  return parts.map((part) => part.replace(/[.\s]+$/, '')).join('. ');
}

function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}
