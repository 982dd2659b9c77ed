import {
  type CallToolResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { Catalog } from '../../catalog/catalog.js';
import type { CodeExecutor } from '../../composition/code/code-executor.js';
import type { SkillCatalog } from '../../composition/skills/skill-catalog.js';
import type { CallOptions, ToolScope } from '../../composition/tool-scope.js';
import type { ToolsetView } from '../../composition/toolsets/toolset-registry.js';
import type { ActionGate } from '../../execution/action-gate.js';
import { errorForSurface } from '../../foundation/model/error-hints.js';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { ToolResult } from '../../foundation/model/tool.js';
import { type ClientChannel, isInputRequired } from '../../foundation/ports/client-channel.js';
import { type Logger, lazyChild } from '../../foundation/ports/logger.js';
import type { CallerContext } from '../../foundation/ports/tool-backend.js';
import { formatIssues, type SchemaValidator } from '../../foundation/schema/schema-validator.js';
import type { InFlightCalls } from '../../foundation/util/in-flight-calls.js';
import { untilAborted } from '../../foundation/util/until-aborted.js';
import { taskHandleOf } from '../../sources/mcp/downstream-tasks.js';
import { CATALOG_VERSION_META_KEY, type CatalogCacheHints } from './cache-hints.js';
import { type AutoListing, Exposure, type ExposureCache, type ExposureOptions } from './exposure.js';
import type { FlatNaming } from './flat-naming.js';
import { type GatewayTasks, TASK_METATOOLS } from './gateway-tasks.js';
import { type InputRounds, isModernRequest, type RoundState } from './input-rounds.js';
import { isPassThrough, type Metatool } from './metatool.js';
import { METATOOLS } from './metatools.js';
import { serversSeen } from './passthrough/servers-seen.js';
import {
  PASSTHROUGH_CAPABILITIES,
  type PassthroughAccess,
  type PassthroughServer,
  servePassthrough,
} from './passthrough.js';
import { protocolError } from './protocol-error.js';
import { guardRequestParams } from './request-params-guard.js';
import { resourceNamingOf } from './resource-naming.js';
import { createSessionChannel, type SessionChannel } from './session-channel.js';
import { sessionOwner } from './session-factory.js';
import type { SessionSkills } from './skills/serve-skills.js';
import {
  declaredTasks,
  declaringTasks,
  serveTaskRoutes,
  type TaskRoutes,
  taskAnswer,
} from './task-routes.js';

export interface McpSessionOptions {
  scope: ToolScope;
  /** Code mode; without it `execute_code` and `code_api` are not served. */
  code?: CodeExecutor;
  catalog: Catalog;
  validator: SchemaValidator;
  exposure: ExposureOptions;
  /**
   * `auto`: what it decided when this session started on another replica (its shared record),
   * kept until the catalog changes here; absent: auto decides for the catalog as it is.
   */
  keepListing?: AutoListing;
  serverInfo: { name: string; version: string };
  caller: CallerContext;
  /** The toolsets the caller may use (`list_toolsets`, `describe_toolset`); absent: none configured. */
  toolsets?: ToolsetView;
  /** The configured skills (`list_skills`, `describe_skill`, `plan_skill`, `run_skill`); absent: none. */
  skills?: SkillCatalog;
  /**
   * Downstream MCP servers whose resources, prompts, completions and logging the session relays,
   * in every exposure mode; absent: none are.
   */
  passthrough?: readonly PassthroughServer[];
  /**
   * The caller is confined to toolsets: its passthrough shows only the servers whose tools its
   * scope sees (`serversSeen`); reads and gets of the others are refused (`forbidden`). With none
   * seen when the session starts, it serves no passthrough at all (no capability advertised).
   */
  confined?: boolean;
  /** The stages reads, gets and subscriptions of passthrough go through, as tool calls do; absent: none. */
  gate?: ActionGate;
  /** Masks credentials in relayed downstream error messages (the gateway's secret masker). */
  maskText?: (text: string) => string;
  /** How tools are named in flat exposure (default `namespace__name` for all). */
  naming?: FlatNaming;
  /** Extra tools served next to the metatools (the ChatGPT connector `search` and `fetch`). */
  extraTools?: readonly Metatool[];
  /**
   * Calls in flight, for shutdown: a `tools/call` is one from start to answer, metatools (a chain,
   * code mode) included, and is answered `backend_unavailable` if the shutdown's grace ends first.
   */
  calls?: InFlightCalls;
  /**
   * Exposure views shared by the sessions of one gateway (they all get the same options);
   * absent: each session computes its own.
   */
  exposureCache?: ExposureCache;
  /** Input rounds of 2026-07-28 clients (one for the whole gateway); absent: asks fail for them. */
  inputRounds?: InputRounds;
  /**
   * Caching hints of 2026-07-28 results that follow the catalog (one for the whole gateway);
   * absent: the SDK's `ttlMs: 0`, `cacheScope: private`.
   */
  cacheHints?: CatalogCacheHints;
  /** What the session's scope is for (a toolset's `description`), sent after the gateway's own instructions. */
  instructions?: string;
  /**
   * Serves the Skills extension on the session's server (`skills/serve-skills.ts`), given the
   * session's channel (an approval's form reaches the client through it); absent: none.
   */
  skillsExtension?: (server: Server, session: SessionChannel) => SessionSkills | undefined;
  /** Tasks of downstream servers handed to clients (the Tasks extension); absent: not served. */
  tasks?: TaskRoutes;
  /** The gateway's own long calls as tasks, for clients that declared the extension; absent: never. */
  gatewayTasks?: GatewayTasks;
  log: Logger;
}

// Sent once with `initialize` and read by the model like the tool list, so it is as lean.
const INSTRUCTIONS =
  "A tool gateway. Don't guess tool names: search_tools for a task, describe_tool for its schema, then run_tool.";

type Extra = ServerContext;

/** The stateless revision served beside the 2025 ones. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/**
 * One MCP server instance for one client session (never shared across clients): the metatools
 * and/or the flat tools of a scope, progress notifications, cancellation, and `tools/list_changed`
 * when the catalog changes. Call `dispose()` when the session ends.
 */
export function createMcpSessionServer(options: McpSessionOptions): {
  server: Server;
  dispose: () => void;
  cancelled?: (requestId: string | number) => void;
  listing: () => AutoListing | undefined;
} {
  const { scope, validator, log } = options;
  const capabilities = {
    code: options.code !== undefined,
    toolsets: options.toolsets !== undefined,
    skills: options.skills !== undefined,
  };
  const served = METATOOLS.filter((m) => m.requires === undefined || capabilities[m.requires]);
  const extra = options.extraTools ?? [];
  const extraNames = new Set(extra.map((m) => m.name));
  const metatools = new Map<string, Metatool>([...served, ...extra].map((m) => [m.name, m]));
  // MCP Apps: tools' `ui://` resources named as the passthrough names resources (docs/PROTOCOL.md).
  const resources = resourceNamingOf(options.passthrough ?? []);
  const exposure = new Exposure(scope, served, options.exposure, {
    extra,
    resources,
    ...(options.exposureCache ? { shared: options.exposureCache } : {}),
    ...(options.naming ? { naming: options.naming } : {}),
    ...(options.keepListing ? { keep: options.keepListing } : {}),
  });
  // Prompts and resources cost the model nothing: relayed in every exposure mode. A confined
  // session whose scope holds no downstream server's tools has nothing to relay, and says so.
  const sees = options.confined ? serversSeen(scope) : undefined;
  const relay =
    options.passthrough !== undefined &&
    (sees === undefined || options.passthrough.some((s) => sees(s.server)));
  const catalogHint = options.cacheHints?.hint(options.caller);
  const server = new Server(options.serverInfo, {
    capabilities: { tools: { listChanged: true }, ...(relay ? PASSTHROUGH_CAPABILITIES : {}) },
    instructions: options.instructions ? `${INSTRUCTIONS}\n\n${options.instructions}` : INSTRUCTIONS,
    // The 2026-07-28 revision beside the 2025 ones: a modern client reaches it through
    // `server/discover` (and the per-request envelope), a 2025 client through `initialize`.
    supportedProtocolVersions: [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS],
    // Input rounds' request state comes back from the client: only a state the gateway signed,
    // for this method, unexpired, is accepted (-32602 otherwise).
    ...(options.inputRounds ? { requestState: { verify: options.inputRounds.verify } } : {}),
    // A 2026-07-28 request gets a server of its own: the hint is fresh for each.
    ...(catalogHint ? { cacheHints: { 'tools/list': catalogHint, 'server/discover': catalogHint } } : {}),
  });
  const session = createSessionChannel(server);
  const passthrough = relay
    ? servePassthrough(
        server,
        options.passthrough ?? [],
        session,
        lazyChild(log, { component: 'passthrough' }),
        options.maskText,
        options.inputRounds
          ? { rounds: options.inputRounds, owner: sessionOwner(options.caller) }
          : undefined,
        passthroughAccess(options, session, sees),
      )
    : undefined;

  server.setRequestHandler('tools/list', async (_request, extra) => {
    const tools = exposure.view().tools;
    const hints = options.cacheHints;
    // A 2026-07-28 client may cache the list: the version says which list it holds.
    if (!hints || !isModernRequest(extra)) return { tools };
    return { tools, _meta: { [CATALOG_VERSION_META_KEY]: hints.versionOf(tools) } };
  });

  /**
   * A server's task answer (`sourceId`'s) as the client gets it, under the gateway's own id
   * (`task-routes.ts`); undefined when `result` is no task or tasks are not served.
   */
  const taskFor = async (sourceId: string, result: ToolResult): Promise<CallToolResult | undefined> => {
    const handle = options.tasks && taskHandleOf(result);
    if (!handle || !options.tasks) return undefined;
    const id = await options.tasks.open(sourceId, handle, sessionOwner(options.caller));
    return taskAnswer(handle, id) as unknown as CallToolResult;
  };

  const callTool = async (
    request: { params: { name: string; arguments?: Record<string, unknown> | undefined } },
    extra: Extra,
    signal: AbortSignal,
    shutdown?: AbortSignal,
    modern?: { channel: ClientChannel; direct: ClientChannel },
  ): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    const view = exposure.view();
    const { call, flush } = callOptions(options.caller, extra);
    // A 2026-07-28 call outlives its request while the client answers input rounds: its signal
    // and its way back to the client are the call's own.
    call.signal = signal;
    // What runs for this request is part of it: a shutdown's drain lets it finish (`InFlightCalls`).
    if (shutdown) call.parent = shutdown;
    call.channel = modern?.channel ?? session.forCall(extra);
    const metatool = view.metatools || extraNames.has(name) ? metatools.get(name) : undefined;
    let directWithSchema = false;
    try {
      if (metatool) {
        const outcome = validator.validate(metatool.inputSchema, args);
        if (!outcome.valid) {
          throw new GatewayError(
            'validation_input',
            `Invalid arguments for ${name}: ${formatIssues(outcome.issues)}`,
            {
              details: { issues: outcome.issues },
            },
          );
        }
        // `run_tool` of a task tool: the client that declared the Tasks extension gets the task.
        const runsTool = name === 'run_tool' && modern !== undefined && options.tasks !== undefined;
        if (runsTool && modern) call.channel = declaringTasks(modern.channel, extra);
        const value = await metatool.handler(args, {
          scope,
          call,
          resources,
          ...(options.code ? { code: options.code } : {}),
          ...(options.toolsets ? { toolsets: options.toolsets } : {}),
          ...(options.skills ? { skills: options.skills } : {}),
          ...(sessionSkills ? { findSkills: sessionSkills.find } : {}),
        });
        // `run_tool`'s result is the tool's own, its resources already named for this client
        // (`resources` in the handler's context: the same naming as the passthrough's).
        if (!isPassThrough(value)) return structured(value);
        const task = runsTool
          ? await taskFor(scope.get(String(args.tool_id)).origin.sourceId, value.passThrough)
          : undefined;
        return task ?? value.passThrough;
      }
      const toolId = view.direct.get(name);
      if (toolId === undefined) {
        // A directly listed tool that was quarantined since the client listed it: resolving its id
        // answers `tool_quarantined` (a result the model reads) rather than an unknown name.
        const naming = options.naming;
        const held = naming && options.catalog.withheldTools().find((w) => naming.nameOf(w.tool) === name);
        if (held) scope.get(held.tool.id);
        throw protocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name}`, {
          code: 'tool_not_found',
        });
      }
      const tool = scope.get(toolId);
      directWithSchema = tool.outputSchema !== undefined;
      // A flat tool is the server's own: a 2026-07-28 server's rounds reach a 2026-07-28 client as
      // they are (metatools answer them on the client's behalf, in rounds of the gateway's own).
      // A client that declared the Tasks extension may get a task from the server (`task-routes.ts`).
      if (modern) call.channel = options.tasks ? declaringTasks(modern.direct, extra) : modern.direct;
      const result = await scope.run(toolId, args, call);
      if (isInputRequired(result)) {
        // The server's round goes to the client as the server made it (the pipeline's empty content dropped).
        const { content: _content, ...round } = result;
        return round as unknown as CallToolResult;
      }
      const task = await taskFor(tool.origin.sourceId, result);
      if (task) return task;
      return passthrough ? passthrough.toolResult(tool, result) : result;
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      // Ended by a shutdown: that is the answer, whatever the tool made of the abort. (The same
      // controller follows the client's cancellation, whose answer is never sent.)
      const failure = toGatewayError(
        shutdown?.aborted && !extra.mcpReq.signal.aborted ? shutdown.reason : error,
      );
      log.debug({ tool: name, code: failure.code, err: failure.message }, 'tool call failed');
      return errorResult(failure, { structured: !directWithSchema });
    } finally {
      // Progress sent during the call must reach the client before the result does.
      await flush();
    }
  };

  const rounds = options.inputRounds;
  const owner = sessionOwner(options.caller);
  server.setRequestHandler('tools/call', async (request, extra): Promise<CallToolResult> => {
    const gatewayTasks = options.gatewayTasks;
    if (
      gatewayTasks &&
      TASK_METATOOLS.has(request.params.name) &&
      metatools.has(request.params.name) &&
      // Served in this exposure (flat serves no metatools but the extra ones).
      (exposure.view().metatools || extraNames.has(request.params.name)) &&
      isModernRequest(extra) &&
      declaredTasks(extra) !== undefined
    ) {
      // A long metatool for a client that takes tasks: it gets the task now, the call runs on.
      // Its steps are part of it: a shutdown's drain lets them run while it waits for the task.
      const task = await gatewayTasks.start(owner, (signal) => callTool(request, extra, signal, signal));
      return task as unknown as CallToolResult;
    }
    if (rounds && isModernRequest(extra)) {
      const state = extra.mcpReq.requestState<RoundState>();
      const target = `tools/call:${request.params.name}`;
      const args = request.params.arguments;
      // A round's state is good only on the request it was issued for (tool, arguments, caller).
      const answer =
        state && 'call' in state
          ? rounds.resume(extra, owner, state, { target, args })
          : rounds.start(
              extra,
              owner,
              (channels, signal) => callTool(request, extra, signal, undefined, channels),
              target,
              args,
            );
      // An input_required answer is a result of the 2026-07-28 revision the SDK sends as it is.
      return (await answer) as CallToolResult;
    }
    const calls = options.calls;
    if (!calls) return callTool(request, extra, extra.mcpReq.signal);
    // One controller ends the call both when its client cancels it and when a shutdown's drain
    // cuts it: `AbortSignal.any` of the two cost more than the rest of the call's set-up.
    const controller = new AbortController();
    const cancel = extra.mcpReq.signal;
    const onCancel = () => controller.abort(cancel.reason);
    if (cancel.aborted) onCancel();
    else cancel.addEventListener('abort', onCancel, { once: true });
    try {
      return await calls.run(controller, () =>
        untilAborted(callTool(request, extra, controller.signal, controller.signal), controller.signal),
      );
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      return errorResult(toGatewayError(error));
    } finally {
      cancel.removeEventListener('abort', onCancel);
    }
  });

  // After the passthrough's `resources/read`, which it answers for every URI but a skill's.
  const sessionSkills = options.skillsExtension?.(server, session);

  if (options.tasks) {
    serveTaskRoutes(server, options.tasks, options.passthrough ?? [], owner, options.gatewayTasks);
  }

  // After the last handler: a malformed request is the caller's -32602, not an internal error.
  guardRequestParams(server);

  const unsubscribe = options.catalog.onChange(() => {
    // Only meaningful once the client has initialised; a closed transport just drops it.
    server.sendToolListChanged().catch(() => {});
  });
  // What auto lists now: a replicated session's record keeps the decision it opened with. Other
  // modes decide nothing (and flat would name the whole catalog for it).
  const listing = (): AutoListing | undefined =>
    options.exposure.mode === 'auto' ? exposure.view().listing : undefined;
  const dispose = () => {
    unsubscribe();
    passthrough?.close();
    session.close();
  };
  return rounds
    ? { server, dispose, listing, cancelled: (requestId) => void rounds.cancel(owner, requestId) }
    : { server, dispose, listing };
}

/** What the session's passthrough may reach and how its reads are gated (`PassthroughAccess`). */
function passthroughAccess(
  options: McpSessionOptions,
  session: SessionChannel,
  sees: PassthroughAccess['sees'],
): PassthroughAccess {
  const { gate, cacheHints, caller } = options;
  return {
    ...(sees ? { sees } : {}),
    ...(gate
      ? {
          gate: (server, method, args, extra, run) =>
            gate.run(
              {
                target: server,
                method,
                args,
                caller: {
                  ...caller,
                  surface: 'mcp',
                  ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
                },
                signal: extra.mcpReq.signal,
                channel: session.forCall(extra),
              },
              run,
            ),
        }
      : {}),
    ...(cacheHints ? { listHint: (sources) => cacheHints.mergedHint(caller, sources) } : {}),
  };
}

function callOptions(caller: CallerContext, extra: Extra): { call: CallOptions; flush: () => Promise<void> } {
  const token = extra.mcpReq._meta?.progressToken;
  const call: CallOptions = {
    caller: { ...caller, surface: 'mcp', ...(extra.sessionId ? { sessionId: extra.sessionId } : {}) },
  };
  call.signal = extra.mcpReq.signal;
  let pending: Promise<unknown> = Promise.resolve();
  if (token !== undefined) {
    call.progress = (update) => {
      const sent = extra.mcpReq
        .notify({ method: 'notifications/progress', params: { progressToken: token, ...update } })
        .catch(() => {});
      pending = Promise.all([pending, sent]);
    };
  }
  return { call, flush: async () => void (await pending) };
}

/** A metatool's plain result: structuredContent plus the same JSON as text. */
export function structured(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * A failure as an MCP tool result the model can read (docs/DESIGN.md §4): `[code] message` as text and
 * `{ error }` as structuredContent. With `structured: false` (a flat tool that declares an output
 * schema, which clients check structuredContent against even on errors) the `{ error }` JSON goes
 * in a second text block instead.
 */
export function errorResult(error: GatewayError, options: { structured?: boolean } = {}): ToolResult {
  const json = errorForSurface(error, 'mcp').toJSON();
  const text = { type: 'text' as const, text: `[${json.code}] ${json.message}` };
  if (options.structured === false) {
    return { isError: true, content: [text, { type: 'text', text: JSON.stringify({ error: json }) }] };
  }
  return { isError: true, content: [text], structuredContent: { error: json } };
}
