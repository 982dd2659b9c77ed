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
  type ListResourcesResult,
  ProtocolErrorCode,
  type ReadResourceResult,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { GatewayError } from '../../../foundation/model/gateway-error.js';
import { isModernRequest } from '../input-rounds.js';
import { gatewayProtocolError } from '../passthrough/passthrough-access.js';
import { protocolError } from '../protocol-error.js';
import { requestHandlerTable } from '../sdk-internals.js';
import {
  type GatewaySkills,
  HiddenSkillUri,
  type SkillCacheFields,
  type SkillHit,
  type SkillView,
} from './gateway-skills.js';

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
 *
 * With `view.gate`, gets and file reads pass the stages tool calls pass as `<namespace>:skills/get`
 * (a refusal answers the JSON-RPC error of its code, `data.code` `forbidden`, `rate_limited`…), and
 * a skill the policies hide is absent from `skills/list`, from search and from the passthrough's
 * `resources/list`, its get and reads answered as for no such skill.
 */
export function serveSkills(
  server: Server,
  skills: GatewaySkills,
  view: SkillView,
): SessionSkills | undefined {
  if (!skills.available) return undefined;
  const previous = requestHandlerTable(server)?.get('resources/read');
  const previousList = requestHandlerTable(server)?.get('resources/list');
  const previousSubscribe = requestHandlerTable(server)?.get('resources/subscribe');
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
      const answer = await skills.get(params.uri, view, ctx).catch((error: unknown) => {
        // A stage of the gate refused it (a policy, a rate limit): its code, as for a prompts/get.
        if (error instanceof GatewayError && error.details?.stage !== undefined) refusal(error);
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
        const answer = await skills.readDirectory(params.uri, view, ctx).catch(refusal);
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
    const answer = await skills.read(uri, view, ctx).catch((error: unknown) => {
      // A hidden skill's file is not passed on to the passthrough, which would relay it.
      if (error instanceof HiddenSkillUri) throw resourceNotFound(uri);
      return refusal(error);
    });
    if (answer) return answer;
    if (previous) {
      // A skill file named in its server's own form reaches the passthrough: gated as a skill too.
      return (await skills
        .passOn(uri, view, ctx, () => previous(request, ctx))
        .catch((error: unknown) => {
          if (error instanceof HiddenSkillUri) throw resourceNotFound(uri);
          return refusal(error);
        })) as ReadResourceResult;
    }
    throw resourceNotFound(uri);
  });

  if (previousList && view.gate) {
    // The servers' skill files are their resources too: those of hidden skills are left out.
    server.setRequestHandler('resources/list', async (request, ctx): Promise<ListResourcesResult> => {
      const result = (await previousList(request, ctx)) as ListResourcesResult;
      const hidden = await skills.hiddenFiles(view);
      if (!hidden) return result;
      return { ...result, resources: result.resources.filter((resource) => !hidden(resource.uri)) };
    });
  }
  if (previousSubscribe && view.gate) {
    // Nor is a hidden skill's file subscribed to (in either form): unknown, as it is to a read.
    server.setRequestHandler('resources/subscribe', async (request, ctx) => {
      const uri = request.params.uri;
      if (await skills.hidesFile(uri, view)) throw resourceNotFound(uri);
      return (await previousSubscribe(request, ctx)) as Record<string, never>;
    });
  }

  return { find: (query) => skills.search(query, view) };
}

/** The answer to a read of a URI nobody serves (or of a skill the caller must not know). */
function resourceNotFound(uri: string) {
  return protocolError(ProtocolErrorCode.InvalidParams, `Resource not found: ${uri}`, {
    code: 'tool_not_found',
    uri,
  });
}

/**
 * A refusal of one of the gate's stages (a GatewayError stamped with its stage) as the JSON-RPC
 * error of its code; anything else — a server's own failure — as it is.
 */
function refusal(error: unknown): never {
  if (error instanceof GatewayError && error.details?.stage !== undefined) throw gatewayProtocolError(error);
  throw error;
}

/** The caching fields on a 2026-07-28 answer only (a 2025 client's result has none). */
function cacheOf(cache: SkillCacheFields, ctx: ServerContext): Partial<SkillCacheFields> {
  return isModernRequest(ctx) ? cache : {};
}
