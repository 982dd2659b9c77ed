import { randomUUID } from 'node:crypto';
import type { Catalog } from '../catalog/catalog.js';
import { GatewayError, toGatewayError } from '../foundation/model/gateway-error.js';
import type { Tool, ToolResult } from '../foundation/model/tool.js';
import { parseToolId } from '../foundation/model/tool-id.js';
import { type ClientChannel, isInputRequired } from '../foundation/ports/client-channel.js';
import { type Logger, silentLogger } from '../foundation/ports/logger.js';
import type { CallerContext, ExecutionContext, ProgressUpdate } from '../foundation/ports/tool-backend.js';
import { formatIssues, type SchemaValidator } from '../foundation/schema/schema-validator.js';
import { InFlightCalls } from '../foundation/util/in-flight-calls.js';
import { MAX_JSON_DEPTH, pathPastDepth, shortPath } from '../foundation/util/json-depth.js';
import { untilAborted } from '../foundation/util/until-aborted.js';
import { normalizeResult, resultBytes } from './normalize-result.js';
import { type PipelineStage, withStage } from './pipeline-stages.js';
import type { PolicyCheck } from './policy/policy-enforcement.js';
import { composeMiddlewares, type RunMiddleware } from './run-middleware.js';

/** One call to run. */
export interface RunRequest {
  toolId: string;
  /** The arguments object (`undefined` counts as `{}`). */
  args: unknown;
  caller: CallerContext;
  /** Aborts the call from outside (client cancellation); the call fails with `cancelled`. */
  signal?: AbortSignal;
  /**
   * The call in flight this one is part of (a chain's or a skill's step, a metatool's or a code
   * program's tool call): that call's `ExecutionContext.signal`. A shutdown's drain refuses new
   * calls but not these, so the parent can finish (`InFlightCalls`).
   */
  parent?: AbortSignal;
  progress?: (update: ProgressUpdate) => void;
  /** The way back to the calling client, when its surface can relay server-to-client requests. */
  channel?: ClientChannel;
  /** The caller's scope: a tool it cannot see does not exist for it (`tool_not_found`). */
  isVisible?: (tool: Tool) => boolean;
  /** Overrides the tool's and the gateway's timeout. */
  timeoutMs?: number;
}

/** Decides whether a caller may run a tool; throws `unauthorized` or `forbidden` if not. */
export interface Authorizer {
  authorize(tool: Tool, caller: CallerContext): void | Promise<void>;
}

/** The defaults of the pipeline's limits (the config's `execution` section defaults to them). */
export const RUN_PIPELINE_DEFAULTS = Object.freeze({
  /** A call's timeout when neither the call nor its server sets one. */
  defaultTimeoutMs: 60_000,
  /** Larger tool results are refused with `payload_too_large`. */
  maxResultBytes: 16 * 1024 * 1024,
});

export interface RunPipelineOptions {
  catalog: Catalog;
  validator: SchemaValidator;
  /** Outermost first. Default none. */
  middlewares?: readonly RunMiddleware[];
  /** Default: everyone may run every visible tool. */
  authorizer?: Authorizer;
  /**
   * The policy rules (`policies`): checked in the authorize stage once the arguments are valid,
   * so rules see them; a tool they hide from the caller is unknown to it. Default none.
   */
  policy?: PolicyCheck;
  /** Used when neither the request nor the tool sets a timeout. Default 60000. */
  defaultTimeoutMs?: number;
  /** Results larger than this (JSON bytes) fail with `payload_too_large`. Default 16 MiB. */
  maxResultBytes?: number;
  /** Calls in flight (shared with the surfaces, for shutdown). Default a registry of its own. */
  calls?: InFlightCalls;
  /** Masks secret values in the messages of errors leaving the pipeline. */
  maskText?: (text: string) => string;
  log?: Logger;
}

const allowAll: Authorizer = { authorize() {} };

/** Where a call is: the stage any error raised now is stamped with (`details.stage`). */
interface CallProgress {
  stage: PipelineStage;
}

/**
 * The run pipeline: parse id → resolve → authorize → validate input → select backend →
 * middlewares → execute → normalize → validate output (`PIPELINE_STAGES`). Every surface runs
 * tools through one instance, so no two surfaces can disagree about a call. Every error it raises
 * carries the stage it failed in as `details.stage`.
 */
export class RunPipeline {
  private readonly middlewares: readonly RunMiddleware[];
  private readonly authorizer: Authorizer;
  private readonly policy: PolicyCheck | undefined;
  private readonly defaultTimeoutMs: number;
  private readonly maxResultBytes: number;
  private readonly maskText: ((text: string) => string) | undefined;
  private readonly log: Logger;
  /** Calls in flight, shared with the surfaces (shutdown drains them). */
  readonly calls: InFlightCalls;

  constructor(private readonly options: RunPipelineOptions) {
    this.middlewares = options.middlewares ?? [];
    this.authorizer = options.authorizer ?? allowAll;
    this.policy = options.policy;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? RUN_PIPELINE_DEFAULTS.defaultTimeoutMs;
    this.maxResultBytes = options.maxResultBytes ?? RUN_PIPELINE_DEFAULTS.maxResultBytes;
    this.maskText = options.maskText;
    this.log = options.log ?? silentLogger;
    this.calls = options.calls ?? new InFlightCalls();
  }

  /** Resolves a tool id for a caller (stages parse_id and resolve); throws `tool_not_found`. */
  resolve(toolId: string, isVisible?: (tool: Tool) => boolean): Tool {
    const progress: CallProgress = { stage: 'parse_id' };
    try {
      return this.resolveIn(progress, toolId, isVisible);
    } catch (error) {
      throw withStage(toGatewayError(error), progress.stage);
    }
  }

  private resolveIn(progress: CallProgress, toolId: string, isVisible?: (tool: Tool) => boolean): Tool {
    progress.stage = 'parse_id';
    parseToolId(toolId);
    progress.stage = 'resolve';
    const entry = this.options.catalog.get(toolId);
    if (!entry) {
      // A quarantined tool is gone from every listing, but a caller who names it learns why —
      // unless it lies outside the caller's scope, where it does not exist for them at all.
      const withheld = this.options.catalog.withheld(toolId);
      if (withheld && (!isVisible || isVisible(withheld.tool))) {
        throw new GatewayError('tool_quarantined', withheld.message, { toolId, details: withheld.details });
      }
    }
    if (!entry || (isVisible && !isVisible(entry.tool))) throw notFound(toolId);
    return entry.tool;
  }

  /** Runs one call. Resolves to the tool's result; rejects with a GatewayError naming the tool. */
  async run(request: RunRequest): Promise<ToolResult> {
    // One mutable marker rather than a try/catch per stage: the hot path stays as it was, and an
    // error arriving through the abort race (timeout, cancel) is stamped with the stage it cut.
    const progress: CallProgress = { stage: 'parse_id' };
    try {
      return await this.runStages(request, progress);
    } catch (error) {
      throw this.masked(withStage(toGatewayError(error), progress.stage).withToolId(request.toolId));
    }
  }

  /** The error with any secret value in its message masked; details are dropped when they may hold one. */
  private masked(error: GatewayError): GatewayError {
    if (!this.maskText) return error;
    const message = this.maskText(error.message);
    const details = error.details === undefined ? undefined : this.maskText(JSON.stringify(error.details));
    if (message === error.message && details === JSON.stringify(error.details)) return error;
    return error.with({
      message,
      details: details === undefined ? undefined : (JSON.parse(details) as Record<string, unknown>),
      // The cause holds the text unmasked, and loggers print causes: the masked error has none.
      cause: undefined,
    });
  }

  private async runStages(request: RunRequest, progress: CallProgress): Promise<ToolResult> {
    const tool = this.resolveIn(progress, request.toolId, request.isVisible);
    // A tool the policies deny this caller for every argument does not exist for it, exactly as
    // an unknown id (no oracle for what is hidden).
    if (this.policy?.hides(tool, request.caller)) throw notFound(request.toolId);
    progress.stage = 'authorize';
    await this.authorizer.authorize(tool, request.caller);
    progress.stage = 'validate_input';
    const args = this.validateInput(tool, request.args);
    const callId = randomUUID();
    const parentLog = this.log;
    let log: Logger | undefined;
    const context = (signal: AbortSignal): ExecutionContext => ({
      signal,
      callId,
      caller: request.caller,
      progress: (update) => request.progress?.(update),
      ...(request.channel ? { channel: request.channel } : {}),
      // Made on first use: a child logger per call costs more than the rest of the pipeline.
      get log() {
        log ??= parentLog.child({ callId, tool: tool.id });
        return log;
      },
    });
    if (this.policy) {
      // Still the authorize stage: the rules see the validated arguments (an invalid call is
      // refused before any rule runs, and nothing of the schema leaks to a confined caller, whose
      // toolset check came first). A held call waits for its answer, cancellable by the client
      // but not cut by the call's timeout, which starts when the call runs.
      progress.stage = 'authorize';
      const pending = this.policy.authorize(
        { tool, args, caller: request.caller, surface: request.caller.surface ?? 'mcp' },
        () => context(request.signal ?? new AbortController().signal),
      );
      if (pending) await pending;
    }
    progress.stage = 'select_backend';
    const entry = this.options.catalog.get(tool.id);
    if (!entry)
      throw new GatewayError('backend_unavailable', `Tool "${tool.id}" was removed while being called`);

    const timeoutMs = request.timeoutMs ?? toolTimeout(tool) ?? this.defaultTimeoutMs;
    const controller = new AbortController();
    const ctx = context(controller.signal);
    progress.stage = 'middlewares';
    const stop = abortOn(controller, request.signal, timeoutMs);
    try {
      const execute = async (): Promise<ToolResult> => {
        progress.stage = 'execute';
        let raw: unknown;
        try {
          raw = await entry.backend.execute(tool, args, ctx);
        } catch (error) {
          // A backend's own failure is never the caller's fault.
          throw toGatewayError(error, 'execution_failed');
        }
        progress.stage = 'normalize';
        const result = normalizeResult(raw);
        this.checkSize(tool, result);
        // Checked inside the middlewares, so they see a result that fails its checks as the failed
        // call it is: observers record its code, and a cache never stores it.
        progress.stage = 'validate_output';
        this.checkOutput(tool, result);
        // Back in the middlewares' hands: what fails from here on is theirs.
        progress.stage = 'middlewares';
        return result;
      };
      // One race for the whole call: a backend or middleware that never settles cannot hold it.
      // In flight from here on: a shutdown waits for it, then ends it (`InFlightCalls`).
      return await this.calls.run(
        controller,
        () =>
          untilAborted(composeMiddlewares(this.middlewares, { tool, args, ctx }, execute), controller.signal),
        request.parent,
      );
    } finally {
      stop();
    }
  }

  private validateInput(tool: Tool, raw: unknown): Record<string, unknown> {
    const args = raw === undefined || raw === null ? {} : raw;
    if (typeof args !== 'object' || Array.isArray(args)) {
      throw new GatewayError('validation_input', 'Arguments must be a JSON object', {
        details: { issues: [{ path: '/', message: 'must be object' }] },
      });
    }
    // Every surface's arguments pass here (stdio, code mode, A2A too): nesting deep enough to
    // overflow recursive validation or the tool is the caller's error, not the backend's failure.
    const deep = pathPastDepth(args);
    if (deep !== undefined) {
      throw new GatewayError(
        'validation_input',
        `Invalid arguments for ${tool.id}: nested deeper than ${MAX_JSON_DEPTH} levels (at ${shortPath(deep)})`,
        {
          details: {
            issues: [{ path: shortPath(deep), message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
          },
        },
      );
    }
    const outcome = this.options.validator.validate(tool.inputSchema, args);
    if (!outcome.valid) {
      throw new GatewayError(
        'validation_input',
        `Invalid arguments for ${tool.id}: ${formatIssues(outcome.issues)}`,
        {
          details: { issues: outcome.issues },
        },
      );
    }
    return args as Record<string, unknown>;
  }

  private checkSize(tool: Tool, result: ToolResult): void {
    const bytes = resultBytes(result);
    if (bytes > this.maxResultBytes) {
      throw new GatewayError(
        'payload_too_large',
        `The result of ${tool.id} is ${bytes} bytes, over the limit of ${this.maxResultBytes}`,
        { details: { bytes, limit: this.maxResultBytes } },
      );
    }
  }

  private checkOutput(tool: Tool, result: ToolResult): void {
    // A round of a 2026-07-28 server's questions (passed through to the client) is no output yet.
    if (!tool.outputSchema || result.isError || isInputRequired(result)) return;
    if (result.structuredContent === undefined) {
      throw new GatewayError(
        'validation_output',
        `${tool.id} declares an output schema but returned no structured result`,
      );
    }
    let outcome: ReturnType<SchemaValidator['validate']>;
    try {
      outcome = this.options.validator.validate(tool.outputSchema, result.structuredContent);
    } catch (error) {
      throw new GatewayError('validation_output', `${tool.id} has an unusable output schema`, {
        cause: error,
      });
    }
    if (!outcome.valid) {
      throw new GatewayError(
        'validation_output',
        `${tool.id} returned a result that does not match its output schema: ${formatIssues(outcome.issues)}`,
        { details: { issues: outcome.issues } },
      );
    }
  }
}

function notFound(toolId: string): GatewayError {
  return new GatewayError('tool_not_found', `No tool "${toolId}"`, { toolId, hint: 'find_tool' });
}

function toolTimeout(tool: Tool): number | undefined {
  const value = tool.metadata.extra?.timeoutMs;
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/**
 * Aborts `controller` when `outer` aborts (reason: cancelled) or after `timeoutMs` (reason:
 * timeout). Returns the clean-up function.
 */
function abortOn(controller: AbortController, outer: AbortSignal | undefined, timeoutMs: number): () => void {
  const onOuter = () =>
    controller.abort(new GatewayError('cancelled', 'The call was cancelled by the client'));
  if (outer?.aborted) onOuter();
  outer?.addEventListener('abort', onOuter, { once: true });
  const timer = setTimeout(
    () =>
      controller.abort(
        new GatewayError('timeout', `The call did not finish within ${timeoutMs} ms`, {
          details: { timeoutMs },
        }),
      ),
    timeoutMs,
  );
  return () => {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  };
}
