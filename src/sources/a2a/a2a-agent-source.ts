import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { CatalogEntry } from '../../catalog/catalog-entry.js';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { normalizeTags } from '../../foundation/model/tags.js';
import type { JsonSchema, Tool } from '../../foundation/model/tool.js';
import { formatToolId, isValidNamespace } from '../../foundation/model/tool-id.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { positiveNumber } from '../../foundation/util/option-checks.js';
import { connectAgent } from './agent-connection.js';
import { AgentSkillBackend } from './agent-skill-backend.js';

/** One entry of the config's `agents:` section (the config schema is derived from this type). */
export interface A2aAgentOptions {
  /** The agent's base URL (its card is at `{url}/.well-known/agent-card.json`) or its card's URL. */
  url: string;
  /** Sent with every request to the agent (e.g. `Authorization`). Default none. */
  headers?: Record<string, string> | undefined;
  /** Longest a call may wait for the agent's task to finish. Default 60000. */
  timeoutMs?: number | undefined;
  /**
   * Allow the agent on a loopback, private or link-local address (the network guard OpenAPI
   * services have). Default false.
   */
  allowPrivateNetwork?: boolean | undefined;
}

/** What loading needs from the gateway. */
export interface A2aAgentSourceContext {
  log: Logger;
}

export const DEFAULT_AGENT_TIMEOUT_MS = 60_000;
/** Extra time the pipeline allows beyond `timeoutMs`, so the backend's own timeout (which also
 * cancels the remote task and says which agent was slow) fires first. */
const PIPELINE_GRACE_MS = 2000;
const MAX_NAME_LENGTH = 64;

const INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['message'],
  properties: {
    message: { type: 'string', minLength: 1, description: 'What to ask the agent, in words.' },
    data: { type: 'object', description: 'Structured input for the agent, sent as a data part.' },
  },
};

/**
 * Loads a remote A2A agent as a source: fetches its card (SDK client) and makes each skill a
 * tool `{name}:{skill id}` (sanitised to `[A-Za-z0-9_.-]`, deduplicated), taking `{ message,
 * data? }`. An agent whose card lists no skills gets one tool `{name}:message`. Running a tool
 * sends a message to the agent and returns its reply (see `AgentSkillBackend`).
 *
 * Throws `config_invalid` for an unusable name or options, `forbidden` when the network guard
 * refuses the agent's address or its card points at another origin, and `backend_unavailable` when
 * the agent cannot be reached or its card is unusable.
 */
export async function loadA2aAgentSource(
  name: string,
  options: A2aAgentOptions,
  context: A2aAgentSourceContext,
): Promise<CatalogEntry[]> {
  if (!isValidNamespace(name)) {
    throw new GatewayError(
      'config_invalid',
      `agents.${name}: the name must match [A-Za-z0-9][A-Za-z0-9_.-]*`,
    );
  }
  const timeoutMs = positiveNumber(options.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS, `agents.${name}.timeoutMs`);
  try {
    new URL(options.url);
  } catch {
    throw new GatewayError('config_invalid', `agents.${name}.url is not a URL: "${options.url}"`);
  }
  const log = context.log.child({ agent: name });
  const { card, client, cardUrl } = await connectAgent(name, options.url, options.headers ?? {}, timeoutMs, {
    allowPrivateNetwork: options.allowPrivateNetwork ?? false,
  });
  const backend = new AgentSkillBackend({
    agent: name,
    client,
    streaming: card.capabilities?.streaming === true,
    timeoutMs,
    log,
  });
  const skills = card.skills.length > 0 ? card.skills : [fallbackSkill(card)];
  const taken = new Set<string>();
  const entries = skills.map((skill) => {
    const toolName = uniqueName(sanitizeName(skill.id), taken);
    return { tool: skillTool(name, toolName, skill, card, cardUrl, timeoutMs), backend };
  });
  log.info({ url: cardUrl, tools: entries.length, agentName: card.name }, 'A2A agent loaded');
  return entries;
}

function skillTool(
  namespace: string,
  name: string,
  skill: AgentSkill,
  card: AgentCard,
  cardUrl: string,
  timeoutMs: number,
): Tool {
  const title = skill.name || skill.id;
  return {
    id: formatToolId({ namespace, name }),
    namespace,
    name,
    title,
    description: skill.description || `Skill "${title}" of the A2A agent "${card.name}".`,
    inputSchema: INPUT_SCHEMA,
    // A remote agent reaches the outside world; whether it changes anything is unknown.
    annotations: { title, openWorldHint: true },
    tags: normalizeTags([...(skill.tags ?? []), 'a2a', 'agent']),
    metadata: { category: 'agents', extra: { timeoutMs: timeoutMs + PIPELINE_GRACE_MS, agentCard: cardUrl } },
    examples: (skill.examples ?? [])
      .slice(0, 5)
      .map((example) => ({ title: example, args: { message: example } })),
    notes: `Runs skill "${skill.id}" of the A2A agent "${card.name}" (${cardUrl}). The reply's data parts are the structured result, its text parts the text.`,
    origin: { sourceId: `agent:${namespace}`, kind: 'a2a', originalName: skill.id },
  };
}

function fallbackSkill(card: AgentCard): AgentSkill {
  return {
    id: 'message',
    name: card.name,
    description: card.description,
    tags: [],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
}

/** A skill id as a tool name: characters every surface accepts (MCP flat names, CLI). */
function sanitizeName(id: string): string {
  const cleaned = id
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/^[_.-]+|[_.-]+$/g, '')
    .slice(0, MAX_NAME_LENGTH);
  return cleaned || 'skill';
}

function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, MAX_NAME_LENGTH - 4)}_${n}`;
  taken.add(name);
  return name;
}
