import { randomUUID } from 'node:crypto';
import { isGatewayErrorCode } from '../foundation/model/error-codes.js';
import { GatewayError, toGatewayError } from '../foundation/model/gateway-error.js';
import type { Tool, ToolResult } from '../foundation/model/tool.js';
import type { ClientChannel } from '../foundation/ports/client-channel.js';
import { type Logger, silentLogger } from '../foundation/ports/logger.js';
import type { CallerContext, ExecutionContext } from '../foundation/ports/tool-backend.js';
import type { InFlightCalls } from '../foundation/util/in-flight-calls.js';
import { type PipelineStage, withStage } from './pipeline-stages.js';
import type { PolicyCheck } from './policy/policy-enforcement.js';
import { composeMiddlewares, type RunMiddleware } from './run-middleware.js';

/**
 * The requests that are gated like tool calls: a downstream server's relayed reads, gets and
 * subscriptions, and `skills/get` — which stands for a skill's entry and every file of it, of a
 * server or of the gateway's configured skills (`skill`).
 */
export type GatedMethod = 'resources/read' | 'prompts/get' | 'resources/subscribe' | 'skills/get';

/** The downstream server (or the gateway's own source) an action goes to, as the gate names it. */
export interface ActionTarget {
  /** Its namespace: the action is known as `<namespace>:<method>`. */
  namespace: string;
  /**
   * Its catalog source (`mcp:<name>`; a configured skill's is its tool id `skill:<name>`): limits
   * and breakers keyed by source see its actions.
   */
  sourceId: string;
}

/** One relayed request to gate. */
export interface GatedAction {
  target: ActionTarget;
  method: GatedMethod;
  /** What the rules and the activity feed see: `{ uri }` or `{ name, arguments }`. */
  args: Record<string, unknown>;
  caller: CallerContext;
  /** The client's cancellation of the request. */
  signal?: AbortSignal;
  channel?: ClientChannel;
}

export interface ActionGateOptions {
  /** The run pipeline's middleware chain (the same instances, in the same order). */
  middlewares: readonly RunMiddleware[];
  /** The policies of the pipeline's authorize stage; absent: none. */
  policy?: PolicyCheck | undefined;
  /** Calls in flight (shutdown drains them too); absent: not tracked. */
  calls?: InFlightCalls | undefined;
  log?: Logger | undefined;
}

/**
 * The tool an action is seen as by the stages it passes: `<namespace>:<method>` (for instance
 * `everything:resources/read`), of the server's source, non-destructive and never cached. Policy rules match it like any tool id (`everything:*` covers the server's
 * reads and gets too); the activity feed, logs and metrics name it so.
 */
export function actionTool(target: ActionTarget, method: GatedMethod): Tool {
  return {
    id: `${target.namespace}:${method}`,
    namespace: target.namespace,
    name: method,
    description: `${method} relayed to the server of namespace ${target.namespace}`,
    inputSchema: { type: 'object' },
    // Reading changes nothing (the `cautious` preset lets it through), yet a read is never answered
    // from the result cache (whose entry would hold no answer) nor retried.
    annotations: { destructiveHint: false },
    tags: [],
    metadata: { extra: { cache: false } },
    examples: [],
    // A source id starts with its kind (`<kind>:<name>`).
    origin: { sourceId: target.sourceId, kind: target.sourceId.split(':')[0] ?? '', originalName: method },
  };
}

/** Action tools kept at most (`ActionGate.tools`). */
const MAX_KEPT_TOOLS = 10_000;

/** A relayed request's own failure, carried through the middlewares as a GatewayError. */
class RelayFailure extends GatewayError {
  constructor(readonly original: unknown) {
    const failure = relayedFailure(original);
    super(failure.code, failure.message, { retryable: false, cause: original });
  }
}

/**
 * What a relayed request's failure says of its server, as the middlewares see it (a breaker counts
 * only a source's own failures): a JSON-RPC error the server answered — a number `code`, such as
 * the `-32602` of an unknown URI or skill — says the server is up, so it is `execution_failed`, as
 * a tool that ran and reported an error; one whose `data.code` names a gateway code (a relay's
 * `backend_unavailable` for a server that is down) keeps it; anything else as `toGatewayError`
 * makes it. Without this, a client reading a few unknown URIs would open the server's circuit.
 */
function relayedFailure(error: unknown): GatewayError {
  if (error instanceof GatewayError || typeof error !== 'object' || error === null)
    return toGatewayError(error);
  const { code, data, message } = error as { code?: unknown; data?: { code?: unknown }; message?: unknown };
  if (typeof code !== 'number') return toGatewayError(error);
  const named = data?.code;
  return new GatewayError(
    isGatewayErrorCode(named) ? named : 'execution_failed',
    typeof message === 'string' ? message : `The server answered error ${code}`,
    { cause: error },
  );
}

/**
 * Runs a request that is not a tool call (`resources/read`, `prompts/get`, `resources/subscribe`
 * relayed to a downstream server; `skills/get` and skill file reads) through the stages of the run pipeline that apply to it: authorize (the
 * policies, which see it as the call of {@link actionTool}) and the middlewares (activity feed,
 * observability, rate limits, breakers), with the same instances tool calls go through. The
 * stages that need a tool of the catalog (resolve, input and output schemas) have no object here.
 * What the request itself answers, or throws, comes back unchanged; errors of the gate's stages
 * are GatewayErrors stamped with their stage.
 */
export class ActionGate {
  private readonly log: Logger;
  /**
   * The tool of each action seen, kept: the policies cache what they hide per tool object, so a
   * listing that asks about the same skill again costs a lookup.
   */
  private readonly tools = new Map<string, Tool>();

  constructor(private readonly options: ActionGateOptions) {
    this.log = options.log ?? silentLogger;
  }

  /**
   * Whether `action` is hidden from its caller (`policies.hideDenied`): its tool is hidden, or the
   * policies deny this very call. A listing leaves such an object out, and a request for it is
   * answered as for one that does not exist. False at once without policies.
   */
  hides(action: Pick<GatedAction, 'target' | 'method' | 'args' | 'caller'>): boolean {
    const policy = this.options.policy;
    if (!policy) return false;
    const tool = this.toolOf(action.target, action.method);
    const { caller, args } = action;
    if (!policy.hidesCall) return policy.hides(tool, caller);
    return policy.hidesCall({ tool, args, caller, surface: caller.surface ?? 'mcp' });
  }

  /**
   * Whether the policies may hide anything from `caller` ({@link hides} is false for every
   * action otherwise): a listing asks about each of its objects only then.
   */
  mayHide(caller: CallerContext): boolean {
    const policy = this.options.policy;
    if (!policy) return false;
    return policy.visibilityKey ? policy.visibilityKey(caller) !== undefined : true;
  }

  private toolOf(target: ActionTarget, method: GatedMethod): Tool {
    const key = `${target.sourceId}\u0000${target.namespace}\u0000${method}`;
    let tool = this.tools.get(key);
    if (!tool) {
      // Bounded by the servers and configured skills; a pathological churn starts over.
      if (this.tools.size >= MAX_KEPT_TOOLS) this.tools.clear();
      tool = actionTool(target, method);
      this.tools.set(key, tool);
    }
    return tool;
  }

  /**
   * Runs `execute` (the relay of `action`) once the authorize stage let it through, inside the
   * middlewares; resolves to what it answered.
   */
  async run<T>(action: GatedAction, execute: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const tool = this.toolOf(action.target, action.method);
    const { caller, args } = action;
    const controller = new AbortController();
    const outer = action.signal;
    const onAbort = () =>
      controller.abort(new GatewayError('cancelled', 'The request was cancelled by the client'));
    if (outer?.aborted) onAbort();
    outer?.addEventListener('abort', onAbort, { once: true });
    const callId = randomUUID();
    const parentLog = this.log;
    let log: Logger | undefined;
    const ctx: ExecutionContext = {
      signal: controller.signal,
      callId,
      caller,
      progress: () => {},
      ...(action.channel ? { channel: action.channel } : {}),
      get log() {
        log ??= parentLog.child({ callId, tool: tool.id });
        return log;
      },
    };
    let stage: PipelineStage = 'authorize';
    let answer: { value: T } | undefined;
    try {
      const policy = this.options.policy;
      if (policy) {
        if (policy.hides(tool, caller))
          throw new GatewayError('forbidden', `${tool.id} is not allowed for this caller`);
        const pending = policy.authorize({ tool, args, caller, surface: caller.surface ?? 'mcp' }, () => ctx);
        if (pending) await pending;
      }
      stage = 'middlewares';
      const last = async (): Promise<ToolResult> => {
        stage = 'execute';
        try {
          answer = { value: await execute(controller.signal) };
        } catch (error) {
          throw new RelayFailure(error);
        }
        stage = 'middlewares';
        // The middlewares see an empty success; the request's own answer is kept aside.
        return { content: [] };
      };
      const run = () => composeMiddlewares(this.options.middlewares, { tool, args, ctx }, last);
      const calls = this.options.calls;
      await (calls ? calls.run(controller, run) : run());
      if (!answer) throw new GatewayError('internal', `${tool.id} ended without an answer`);
      return answer.value;
    } catch (error) {
      // The downstream answer (a JSON-RPC error of its own) goes back to the client as it came.
      if (error instanceof RelayFailure) throw error.original;
      throw withStage(toGatewayError(error), stage);
    } finally {
      outer?.removeEventListener('abort', onAbort);
    }
  }
}
