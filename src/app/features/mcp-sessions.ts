import type { ToolScope } from '../../composition/tool-scope.js';
import { ActionGate } from '../../execution/action-gate.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { StateStore } from '../../foundation/ports/state-store.js';
import { type CallerContext, LOCAL_CALLER } from '../../foundation/ports/tool-backend.js';
import type { RedisConnection } from '../../operations/state/redis-connection.js';
import { connectorTools } from '../../surfaces/mcp/connector-tools.js';
import type { ExposureCache } from '../../surfaces/mcp/exposure.js';
import { GatewayTasks } from '../../surfaces/mcp/gateway-tasks.js';
import { InputRounds } from '../../surfaces/mcp/input-rounds.js';
import { type ListenExtras, listenExtras } from '../../surfaces/mcp/listen-extras.js';
import { createMcpSessionServer } from '../../surfaces/mcp/mcp-session-server.js';
import {
  type PassthroughListing,
  passthroughListing,
} from '../../surfaces/mcp/passthrough/passthrough-listing.js';
import { serversSeen } from '../../surfaces/mcp/passthrough/servers-seen.js';
import type { PassthroughServer } from '../../surfaces/mcp/passthrough.js';
import type { McpSessionFactory } from '../../surfaces/mcp/session-factory.js';
import type { RoundKeyStore } from '../../surfaces/mcp/shared/round-key.js';
import { RoundRelay } from '../../surfaces/mcp/shared/round-relay.js';
import { serveSkills } from '../../surfaces/mcp/skills/serve-skills.js';
import { skillGate } from '../../surfaces/mcp/skills/skill-gate.js';
import { StdioServerTransport } from '../../surfaces/mcp/stdio-server-transport.js';
import { TaskNotifications } from '../../surfaces/mcp/task-notifications.js';
import { settledOf, TaskRoutes } from '../../surfaces/mcp/task-routes.js';
import { PACKAGE_INFO } from '../package-info.js';
import type { FeatureFactory } from './feature.js';

declare module './feature.js' {
  interface PartTypes {
    sessions: {
      /** A fresh MCP server per client session, serving the session's scope to its caller. */
      create: McpSessionFactory;
      /** Input rounds of 2026-07-28 clients: one for every session, as each round is a request. */
      inputRounds: InputRounds;
      /** The downstream prompts, resources and templates a scope's sessions are served (the manifest's). */
      listing: (scope: ToolScope, caller?: CallerContext) => Promise<PassthroughListing>;
      /** What 2026-07-28 `subscriptions/listen` streams carry beyond the catalog's tool changes. */
      listen: ListenExtras;
    };
  }
}

/** How often expired task routes (and the gateway tasks' state) are swept from the state store. */
const TASK_SWEEP_MS = 10 * 60_000;

/**
 * MCP sessions (core, always on): a fresh MCP server per client session (docs/DESIGN.md: never
 * share one across clients), for stdio and every HTTP transport alike. What sessions share — flat
 * names, exposure views, input rounds, caching hints, one logger — is made once here.
 */
export const mcpSessions: FeatureFactory = async (_config, parts) => {
  const { calls, validator, maskSecrets } = parts.gateway;
  const shared = parts.need('shared');
  const roundsLog = parts.log.child({ component: 'input-rounds' });
  // Replicas sharing state sign rounds with one key and hand a round to the replica keeping its call.
  const replicated = shared ? await replicatedRounds(shared.connection, roundsLog) : undefined;
  const inputRounds = new InputRounds({ ...replicated, log: roundsLog });
  /** Exposure views by scope, shared by every session (2026-07-28 requests each have one). */
  const exposureCache: ExposureCache = new WeakMap();
  /** One child logger for every session: a 2026-07-28 request makes a session server of its own. */
  let log: Logger | undefined;
  /**
   * Reads, gets and subscriptions of passthrough pass the pipeline's authorize stage (policies)
   * and its middlewares (activity feed, observability, rate limits…): the same instances.
   */
  const gate = new ActionGate({
    middlewares: parts.need('middlewareChain')(),
    policy: parts.need('policyEnforcement'),
    calls,
    log: parts.log.child({ component: 'passthrough' }),
  });
  /** Downstream MCP servers with their prefix setting, for the passthrough of every session. */
  const passthrough = (): PassthroughServer[] => {
    const servers = parts.config().servers;
    return parts.need('remote').servers.map((server) => ({
      server,
      prefix: servers[server.name]?.prefix !== false,
    }));
  };
  /** Downstream servers' tasks handed to clients, routed by the state store (shared with Redis). */
  let taskParts: { tasks: TaskRoutes; gatewayTasks: GatewayTasks } | undefined;
  const ownTasks = () => {
    if (!taskParts) {
      const state = parts.need('searchBacking').state;
      const tasks = new TaskRoutes(state, settledOf(state));
      // A task's call is a call in flight: a shutdown's drain gives it its grace period first.
      taskParts = { tasks, gatewayTasks: new GatewayTasks(state, tasks, { calls, ...settledOption(state) }) };
    }
    return taskParts;
  };
  const create: McpSessionFactory = ({ caller, scope, keepListing }) => {
    const config = parts.config();
    const code = parts.need('code');
    const toolsets = parts.need('toolsets');
    const skills = parts.need('skills').current;
    log ??= parts.log.child({ component: 'mcp' });
    const { tasks, gatewayTasks } = ownTasks();
    return createMcpSessionServer({
      scope,
      ...(code ? { code } : {}),
      catalog: parts.need('catalog'),
      validator,
      exposure: { ...config.exposure, counter: parts.need('exposure').auto() },
      ...(keepListing ? { keepListing } : {}),
      serverInfo: { name: config.server.name, version: PACKAGE_INFO.version },
      caller,
      ...(toolsets.size > 0 ? { toolsets: toolsets.viewFor(caller) } : {}),
      // Downstream prompts and resources in every exposure mode; a caller confined to toolsets sees
      // those of the servers whose tools its toolsets hold.
      passthrough: passthrough(),
      confined: scope.unnarrowed !== parts.need('scope'),
      gate,
      naming: parts.need('naming'),
      maskText: maskSecrets,
      ...(skills ? { skills } : {}),
      ...(config.exposure.connectorTools
        ? { extraTools: connectorTools(() => parts.need('http').baseUrl) }
        : {}),
      calls,
      inputRounds,
      tasks,
      gatewayTasks,
      cacheHints: parts.need('cacheHints'),
      exposureCache,
      // `/mcp/{toolset}`: the toolset's description tells the client what this endpoint is for.
      ...toolsetInstructions(config.toolsets, scope.name),
      // A scope narrower than the gateway's own (a toolset, a policy) sees the skills of its servers
      // only; a skill's get and reads pass the gate as `<namespace>:skills/get` (policies may hide it).
      skillsExtension: (server, session) =>
        serveSkills(server, parts.need('skillsExtension'), {
          scope,
          confined: scope !== parts.need('scope'),
          gate: skillGate(gate, caller, session),
        }),
      log,
    });
  };
  const listing = async (scope: ToolScope, caller?: CallerContext): Promise<PassthroughListing> => {
    log ??= parts.log.child({ component: 'mcp' });
    const confined = scope.unnarrowed !== parts.need('scope');
    const listed = await passthroughListing(passthrough(), log, confined ? serversSeen(scope) : undefined);
    // The files of the skills a policy hides from the caller are left out, as its sessions leave them out.
    const hidden =
      caller &&
      (await parts.need('skillsExtension').hiddenFiles({
        scope,
        confined: scope !== parts.need('scope'),
        gate: skillGate(gate, caller),
      }));
    return hidden ? { ...listed, resources: listed.resources.filter((r) => !hidden(r.uri)) } : listed;
  };
  let notifications: TaskNotifications | undefined;
  const listen = listenExtras({
    createSession: create,
    get tasks() {
      const { tasks, gatewayTasks } = ownTasks();
      notifications ??= new TaskNotifications(
        tasks,
        gatewayTasks,
        passthrough,
        parts.log.child({ component: 'tasks' }),
      );
      return notifications;
    },
    log: parts.log.child({ component: 'listen' }),
  });
  parts.provide('sessions', { create, inputRounds, listing, listen });
  // Routes past their expiry, and the state of the gateway's own tasks they led to, are forgotten.
  let sweeper: NodeJS.Timeout | undefined;
  const sweep = () => ownTasks().gatewayTasks.sweep();
  return {
    name: 'mcp-sessions',
    start: async () => {
      sweep();
      sweeper = setInterval(sweep, TASK_SWEEP_MS);
      sweeper.unref();
      if (!replicated) return;
      // Not awaited: the subscription waits for Redis (queued until it is up), and a gateway whose
      // Redis is away still starts; it takes other replicas' rounds once subscribed.
      inputRounds
        .listen()
        .catch((error: unknown) => roundsLog.warn({ err: String(error) }, 'input round relay not listening'));
      // Fails at once when Redis is away (no offline queue): the gateway signs with its own key meanwhile.
      await inputRounds.ready();
    },
    close: async () => {
      clearInterval(sweeper);
      // Before the state store closes (listed above, closed after): the tasks still running here
      // are recorded failed, and those writes reach the shared store, so another replica answers `failed`.
      await taskParts?.gatewayTasks.close();
      await replicated?.relay.close();
    },
  };
};

/** `{ settled }` of a state store shared by replicas (Redis), or nothing. */
function settledOption(state: StateStore): { settled?: () => Promise<void> } {
  const settled = settledOf(state);
  return settled ? { settled } : {};
}

/**
 * What makes input rounds any replica's: the signing key agreed in Redis, and a relay of rounds
 * on the replicas' session relay (a channel prefix of its own, beside the sessions' one).
 */
async function replicatedRounds(
  connection: RedisConnection,
  log: Logger,
): Promise<{ keyStore: RoundKeyStore; relay: RoundRelay }> {
  const { redisRoundKey } = await import('../../surfaces/mcp/shared/redis-round-key.js');
  const { redisSessionRelay } = await import('../../surfaces/mcp/shared/redis-session-relay.js');
  const { client, subscriber, prefix } = connection;
  return {
    keyStore: redisRoundKey({ redis: client, prefix }),
    relay: new RoundRelay({
      relay: redisSessionRelay({ redis: client, subscriber, prefix: `${prefix}rounds:`, log }),
      log,
    }),
  };
}

/**
 * Serves one MCP session over stdin/stdout, to the local user, unconfined, until stdin closes.
 * Until the transport starts nobody reads stdin, so the client's messages wait in the pipe
 * meanwhile; none is lost.
 */
export async function serveStdio(
  createSession: McpSessionFactory,
  scope: ToolScope,
  log: Logger,
  tools: () => number,
): Promise<void> {
  const { server, dispose } = createSession({ caller: LOCAL_CALLER, scope });
  const transport = new StdioServerTransport();
  // Among these: a line from the client that is not a message (answered with an error as well).
  server.onerror = (error) => log.warn({ error: error.message }, 'MCP stdio connection error');
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  log.info({ tools: tools() }, 'serving MCP on stdio');
  await closed;
  dispose();
  await server.close().catch(() => {});
}

/** `{ instructions }` from the description of the toolset a scope serves, or nothing. */
function toolsetInstructions(
  toolsets: readonly { name: string; description?: string | undefined }[],
  name: string | undefined,
): { instructions?: string } {
  const description =
    name === undefined ? undefined : toolsets.find((t) => t.name === name)?.description?.trim();
  return description ? { instructions: description } : {};
}
