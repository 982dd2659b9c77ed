import {
  GetSkillRequestParamsSchema,
  ListSkillsRequestParamsSchema,
  RESOURCES_DIRECTORY_READ_METHOD,
  ReadResourceDirectoryRequestParamsSchema,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from '@modelcontextprotocol/core/ext/skills';
import {
  ProtocolErrorCode,
  type ReadResourceResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isModernRequest } from '../input-rounds.js';
import { protocolError } from '../protocol-error.js';
import { requestHandlerTable } from '../sdk-internals.js';
import type { GatewaySkills, SkillCacheFields, SkillHit, SkillView } from './gateway-skills.js';

/** What a session that serves the Skills extension offers its metatools (`search_tools`). */
export interface SessionSkills {
  /** The skills the session's caller may see that match `query`, best first. */
  find(query: string): Promise<SkillHit[]>;
}

/**
 * Serves the Skills extension (SEP-2640) on one session's server, for the caller `view` describes:
 * declares `extensions["io.modelcontextprotocol/skills"]`, answers `skills/list` and `skills/get`
 * (aggregated by `GatewaySkills`), and reads skill files through `resources/read` — ahead of any
 * `resources/read` already served (flat exposure's passthrough), which still answers every other
 * URI. Call it after the session's other handlers and before connecting. Undefined (nothing
 * served, nothing declared) when the gateway has no skills to offer.
 */
export function serveSkills(
  server: Server,
  skills: GatewaySkills,
  view: SkillView,
): SessionSkills | undefined {
  if (!skills.available) return undefined;
  const previous = requestHandlerTable(server)?.get('resources/read');
  // Directories are relayed when a server the caller sees serves them (to it; others answer -32602).
  const directories = skills.directoryRead(view);
  server.registerCapabilities({
    ...(previous ? {} : { resources: {} }),
    extensions: { [SKILLS_EXTENSION_ID]: directories ? { directoryRead: true } : {} },
  } as Parameters<Server['registerCapabilities']>[0]);
  if (!previous) {
    // `resources` declared for the skill files alone: its lists answer, empty (skills are listed by
    // `skills/list`), rather than -32601 for a capability the session declares.
    server.setRequestHandler('resources/list', async () => ({ resources: [] }));
    server.setRequestHandler('resources/templates/list', async () => ({ resourceTemplates: [] }));
  }

  server.setRequestHandler(
    SKILLS_LIST_METHOD,
    { params: ListSkillsRequestParamsSchema },
    async (_params, ctx) => {
      // One page: the aggregate is small (skills are few per server), and a cursor would have to
      // span servers whose listings change independently.
      const { skills: listed, ...cache } = await skills.list(view);
      return { skills: listed, ...cacheOf(cache, ctx) };
    },
  );

  server.setRequestHandler(
    SKILLS_GET_METHOD,
    { params: GetSkillRequestParamsSchema },
    async (params, ctx) => {
      const answer = await skills.get(params.uri, view).catch((error: unknown) => {
        // The server knows no skill there (-32602): unknown to the client as any other.
        if ((error as { code?: unknown }).code === ProtocolErrorCode.InvalidParams) return undefined;
        throw error;
      });
      if (!answer) {
        throw protocolError(ProtocolErrorCode.InvalidParams, `No skill is served at ${params.uri}`, {
          code: 'tool_not_found',
          uri: params.uri,
        });
      }
      const { skill, ...cache } = answer;
      return { skill, ...cacheOf(cache, ctx) };
    },
  );

  if (directories) {
    server.setRequestHandler(
      RESOURCES_DIRECTORY_READ_METHOD,
      { params: ReadResourceDirectoryRequestParamsSchema },
      async (params, ctx) => {
        const answer = await skills.readDirectory(params.uri, view);
        if (!answer) {
          throw protocolError(ProtocolErrorCode.InvalidParams, `${params.uri} is not a directory resource`, {
            code: 'tool_not_found',
            uri: params.uri,
          });
        }
        const { resources, ...cache } = answer;
        return { resources, ...cacheOf(cache, ctx) };
      },
    );
  }

  server.setRequestHandler('resources/read', async (request, ctx): Promise<ReadResourceResult> => {
    const uri = request.params.uri;
    const answer = await skills.read(uri, view);
    if (answer) return answer;
    if (previous) return (await previous(request, ctx)) as ReadResourceResult;
    throw protocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`, {
      code: 'tool_not_found',
      uri,
    });
  });

  return { find: (query) => skills.search(query, view) };
}

/** The caching fields on a 2026-07-28 answer only (a 2025 client's result has none). */
function cacheOf(cache: SkillCacheFields, ctx: ServerContext): Partial<SkillCacheFields> {
  return isModernRequest(ctx) ? cache : {};
}
