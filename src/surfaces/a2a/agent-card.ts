import {
  A2A_PROTOCOL_VERSION,
  type AgentCard,
  type AgentInterface,
  type AgentSkill,
  type SecurityRequirement,
  type SecurityScheme,
} from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { A2A_SKILL_MODES, toA2ASkill } from '../../foundation/adapters/a2a-skill-adapter.js';
import type { Tool } from '../../foundation/model/tool.js';
import { RUN_HINT } from './agent-request.js';

/** Catalogs up to this many tools get one skill per tool; larger ones one skill per namespace. */
export const SKILL_PER_TOOL_LIMIT = 20;

/** The v0.3 protocol version written into the v0.3 view of the card. */
const LEGACY_CARD_VERSION = '0.3.0';
const MODES = [...A2A_SKILL_MODES];
const SKILL_TOOLS_LISTED = 5;
const EXAMPLES_PER_SKILL = 3;

export interface AgentCardInput {
  /** The tools the card advertises (the scope's visible tools). */
  tools: readonly Tool[];
  /** Absolute URL of the JSON-RPC (and HTTP+JSON) endpoint, e.g. `http://127.0.0.1:8080/a2a`. */
  endpointUrl: string;
  info: { name: string; version: string; description?: string };
  /** How callers authenticate, when the gateway requires credentials. */
  auth?: CardAuth;
  /** Operator-set card fields (`a2a.card`). */
  extras?: CardExtras;
  /** Whether push notifications are served (`a2a.push`). */
  pushNotifications?: boolean;
  /** Whether an authenticated caller can get its extended card (the skills it may use). */
  extendedAgentCard?: boolean;
}

/** `a2a.card`: who runs the agent and where to read about it. */
export interface CardExtras {
  provider?: { organization: string; url: string } | undefined;
  documentationUrl?: string | undefined;
  iconUrl?: string | undefined;
}

/** The credentials the gateway accepts, declared in the card's security schemes. */
export interface CardAuth {
  /** `X-API-Key` (and `Authorization: Bearer <key>`). */
  apiKeys: boolean;
  /** `Authorization: Bearer <JWT>`. */
  jwt: boolean;
}

/**
 * The gateway's A2A v1.0 agent card. Interfaces: JSON-RPC at v1.0 and v0.3 (the v0.3 mirror
 * serves clients still on `message/send`), and HTTP+JSON at v1.0, all at `endpointUrl`.
 *
 * Skills follow the catalog: when the scope holds at most {@link SKILL_PER_TOOL_LIMIT} tools,
 * one skill per tool (id = tool id, so a client can pass it straight back as `tool_id`);
 * otherwise one skill per namespace (id = namespace), described by its tool count and its first
 * few tool ids. Either way the examples include ready-to-send data parts (`{"tool_id", "args"}`).
 */
export function buildAgentCard(input: AgentCardInput): AgentCard {
  const { tools } = input;
  const skills = tools.length <= SKILL_PER_TOOL_LIMIT ? tools.map(toolSkill) : namespaceSkills(tools);
  return {
    name: input.info.name,
    description:
      input.info.description ??
      `Aperture tool gateway with ${tools.length} tools. Send ${RUN_HINT} to run a tool, or a text ` +
        'part describing what you need to get matching tools.',
    supportedInterfaces: advertisedInterfaces(input.endpointUrl),
    provider: input.extras?.provider,
    version: input.info.version,
    ...(input.extras?.documentationUrl ? { documentationUrl: input.extras.documentationUrl } : {}),
    ...(input.extras?.iconUrl ? { iconUrl: input.extras.iconUrl } : {}),
    capabilities: {
      streaming: true,
      pushNotifications: input.pushNotifications === true,
      extensions: [],
      extendedAgentCard: input.extendedAgentCard === true,
    },
    ...cardSecurity(input.auth),
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills,
    signatures: [],
  };
}

/**
 * Security schemes and requirements (any one scheme suffices): bearer tokens (API keys or JWTs)
 * and the `X-API-Key` header. None without auth.
 */
function cardSecurity(
  auth: CardAuth | undefined,
): Pick<AgentCard, 'securitySchemes' | 'securityRequirements'> {
  const schemes: Record<string, SecurityScheme> = {};
  if (auth?.apiKeys || auth?.jwt) {
    schemes.bearer = {
      scheme: {
        $case: 'httpAuthSecurityScheme',
        value: {
          scheme: 'Bearer',
          bearerFormat: auth.jwt && !auth.apiKeys ? 'JWT' : '',
          description: auth.jwt ? 'A JWT from the configured issuer, or an API key' : 'An API key',
        },
      },
    };
  }
  if (auth?.apiKeys) {
    schemes.apiKey = {
      scheme: {
        $case: 'apiKeySecurityScheme',
        value: { location: 'header', name: 'X-API-Key', description: 'An API key' },
      },
    };
  }
  const requirements: SecurityRequirement[] = Object.keys(schemes).map((name) => ({
    schemes: { [name]: { list: [] } },
  }));
  return { securitySchemes: schemes, securityRequirements: requirements };
}

/** The interfaces the surface serves, all at one URL (JSON-RPC and HTTP+JSON never collide). */
export function advertisedInterfaces(endpointUrl: string): AgentInterface[] {
  const v1 = (protocolBinding: string): AgentInterface => ({
    url: endpointUrl,
    protocolBinding,
    tenant: '',
    protocolVersion: A2A_PROTOCOL_VERSION,
  });
  return duplicateInterfacesForLegacy([v1('JSONRPC'), v1('HTTP+JSON')], ['JSONRPC']);
}

/**
 * The card as a v0.3 client expects it (`url`, `preferredTransport`, `protocolVersion`), with the
 * v1.0 `supportedInterfaces` kept alongside: the two schemas share no endpoint fields, so one
 * "hybrid" document satisfies both (the SDK's own compat layer serves the same shape).
 */
export function toLegacyAgentCard(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.filter((i) => !i.protocolVersion.startsWith('1.'));
  const [primary, ...others] = legacy;
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    url: primary?.url ?? card.supportedInterfaces[0]?.url ?? '',
    preferredTransport: primary?.protocolBinding ?? 'JSONRPC',
    ...(others.length > 0
      ? { additionalInterfaces: others.map((i) => ({ url: i.url, transport: i.protocolBinding })) }
      : {}),
    protocolVersion: LEGACY_CARD_VERSION,
    ...(card.provider ? { provider: card.provider } : {}),
    ...(card.documentationUrl ? { documentationUrl: card.documentationUrl } : {}),
    ...(card.iconUrl ? { iconUrl: card.iconUrl } : {}),
    capabilities: {
      streaming: card.capabilities?.streaming ?? false,
      pushNotifications: card.capabilities?.pushNotifications ?? false,
    },
    ...(card.capabilities?.extendedAgentCard ? { supportsAuthenticatedExtendedCard: true } : {}),
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      ...(skill.examples.length > 0 ? { examples: skill.examples } : {}),
      ...(skill.inputModes.length > 0 ? { inputModes: skill.inputModes } : {}),
      ...(skill.outputModes.length > 0 ? { outputModes: skill.outputModes } : {}),
    })),
    supportedInterfaces: card.supportedInterfaces,
    ...legacySecurity(card),
  };
}

/** The card's security schemes in the v0.3 (OpenAPI) spelling. */
function legacySecurity(card: AgentCard): Record<string, unknown> {
  const schemes: Record<string, unknown> = {};
  for (const [name, { scheme }] of Object.entries(card.securitySchemes)) {
    if (scheme?.$case === 'httpAuthSecurityScheme') {
      schemes[name] = {
        type: 'http',
        scheme: scheme.value.scheme.toLowerCase(),
        ...(scheme.value.bearerFormat ? { bearerFormat: scheme.value.bearerFormat } : {}),
        description: scheme.value.description,
      };
    } else if (scheme?.$case === 'apiKeySecurityScheme') {
      schemes[name] = {
        type: 'apiKey',
        in: scheme.value.location,
        name: scheme.value.name,
        description: scheme.value.description,
      };
    }
  }
  if (Object.keys(schemes).length === 0) return {};
  return { securitySchemes: schemes, security: Object.keys(schemes).map((name) => ({ [name]: [] })) };
}

/**
 * A tool's skill, from the shared A2A adapter (what `aperture export --format a2a` prints), with a
 * ready-to-send call appended to the examples.
 */
function toolSkill(tool: Tool): AgentSkill {
  const { value } = toA2ASkill(tool);
  const examples = [
    ...(value.examples ?? []).slice(0, EXAMPLES_PER_SKILL - 1),
    ...examplesOf([tool]).slice(0, 1),
  ];
  return { ...value, examples, securityRequirements: [] };
}

function namespaceSkills(tools: readonly Tool[]): AgentSkill[] {
  const byNamespace = new Map<string, Tool[]>();
  for (const tool of tools) {
    const group = byNamespace.get(tool.namespace);
    if (group) group.push(tool);
    else byNamespace.set(tool.namespace, [tool]);
  }
  return [...byNamespace].map(([namespace, group]) => {
    const listed = group.slice(0, SKILL_TOOLS_LISTED).map((tool) => tool.id);
    const more = group.length > listed.length ? `, … (${group.length - listed.length} more)` : '';
    return skill({
      id: namespace,
      name: namespace,
      description:
        `${group.length} tool${group.length === 1 ? '' : 's'} in namespace "${namespace}": ` +
        `${listed.join(', ')}${more}. Run one with ${RUN_HINT}; send text to search them.`,
      tags: unique([namespace, ...group.flatMap((tool) => tool.tags)]).slice(0, 10),
      examples: examplesOf(group),
    });
  });
}

/** Ready-to-send data parts, from the tools' own examples (or an empty call when they have none). */
function examplesOf(tools: readonly Tool[]): string[] {
  const examples: string[] = [];
  for (const tool of tools) {
    const own = tool.examples.map((example) => JSON.stringify({ tool_id: tool.id, args: example.args }));
    examples.push(...(own.length > 0 ? own : [JSON.stringify({ tool_id: tool.id, args: {} })]));
    if (examples.length >= EXAMPLES_PER_SKILL) break;
  }
  return examples.slice(0, EXAMPLES_PER_SKILL);
}

function skill(fields: Pick<AgentSkill, 'id' | 'name' | 'description' | 'tags' | 'examples'>): AgentSkill {
  return { ...fields, inputModes: MODES, outputModes: MODES, securityRequirements: [] };
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
