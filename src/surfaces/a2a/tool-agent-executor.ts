import { type Part, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import type { ToolScope } from '../../composition/tool-scope.js';
import { errorForSurface } from '../../foundation/model/error-hints.js';
import { type A2ATaskState, ERROR_CODE_TABLE } from '../../foundation/model/error-tables.js';
import { GatewayError, toGatewayError } from '../../foundation/model/gateway-error.js';
import type { Logger } from '../../foundation/ports/logger.js';
import { type CallerContext, sessionOf } from '../../foundation/ports/tool-backend.js';
import { agentMessage, artifact, dataPart, resultParts, textPart } from './a2a-parts.js';
import { type AgentRequest, interpretMessage } from './agent-request.js';
import { CallerUser } from './call-context.js';

/** Who an A2A caller is to the pipeline when auth is off. */
export const A2A_CALLER: CallerContext = { identity: 'a2a' };

/** The caller of a task and the scope it runs in. */
interface TaskAccess {
  caller: CallerContext;
  scope: ToolScope;
}

/** How many tools a request in words answers with. */
const SEARCH_LIMIT = 10;

const TASK_STATE_OF: Record<A2ATaskState, TaskState> = {
  failed: TaskState.TASK_STATE_FAILED,
  canceled: TaskState.TASK_STATE_CANCELED,
  rejected: TaskState.TASK_STATE_REJECTED,
  'auth-required': TaskState.TASK_STATE_AUTH_REQUIRED,
};

interface TaskIds {
  taskId: string;
  contextId: string;
}

interface RunningTask {
  ids: TaskIds;
  controller: AbortController;
  /** Set by cancelTask, which then owns the task's terminal event. */
  canceled: boolean;
}

/**
 * The A2A agent behind `/a2a`: every message becomes a task that runs one tool through the scope
 * of its caller (data part `{tool_id, args}`) or answers a request in words with matching tools
 * (text part). An authenticated caller (`CallerUser`) works in its own scope; others in `scope`.
 * Tasks go submitted → working → completed | failed | rejected | canceled; a failure's status
 * message carries `{ error: { code, message, … } }` and its state comes from `ERROR_CODE_TABLE`.
 */
export class ToolAgentExecutor implements AgentExecutor {
  /** Tasks whose tool call is under way, by task id. */
  private readonly running = new Map<string, RunningTask>();

  constructor(
    private readonly scope: ToolScope,
    private readonly log: Logger,
  ) {}

  execute = async (context: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const ids: TaskIds = { taskId: context.taskId, contextId: context.contextId };
    if (context.task) {
      // Tasks here are one-shot; a follow-up must not restart (or fail) a task already under way.
      bus.publish(
        AgentEvent.message(
          agentMessage(
            [textPart('This agent does not take follow-up messages on a task; send a new message instead.')],
            ids,
          ),
        ),
      );
      return;
    }
    const entry: RunningTask = { ids, controller: new AbortController(), canceled: false };
    this.running.set(ids.taskId, entry);
    try {
      bus.publish(
        AgentEvent.task({
          id: ids.taskId,
          contextId: ids.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
          artifacts: [],
          history: [context.userMessage],
          metadata: undefined,
        }),
      );
      const request = interpretMessage(context.userMessage);
      if (request.kind === 'unusable') {
        this.fail(bus, ids, new GatewayError('invalid_request', request.reason));
        return;
      }
      this.status(bus, ids, TaskState.TASK_STATE_WORKING);
      try {
        const user = context.context?.user;
        const access: TaskAccess =
          user instanceof CallerUser
            ? { caller: { ...user.caller, surface: 'a2a' }, scope: user.scope }
            : { caller: { ...A2A_CALLER, surface: 'a2a' }, scope: this.scope };
        const produced = await this.perform(request, access, ids, bus, entry.controller.signal);
        if (entry.canceled) return;
        bus.publish(
          AgentEvent.artifactUpdate({
            ...ids,
            artifact: produced,
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        this.status(bus, ids, TaskState.TASK_STATE_COMPLETED);
      } catch (error) {
        if (entry.canceled) return;
        const failure = toGatewayError(error);
        if (failure.code === 'internal')
          this.log.error({ err: error, taskId: ids.taskId }, 'A2A task failed');
        this.fail(bus, ids, failure);
      }
    } finally {
      this.running.delete(ids.taskId);
    }
  };

  /**
   * Aborts the task's tool call and ends the task as canceled at once: the request handler waits
   * for a terminal event, and a tool that is slow to notice its signal must not hold the caller.
   */
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const entry = this.running.get(taskId);
    if (entry) {
      entry.canceled = true;
      entry.controller.abort(new GatewayError('cancelled', 'The A2A task was canceled'));
    }
    // Without a running entry the context id is unknown; the result manager keeps the task's own.
    const ids = entry?.ids ?? { taskId, contextId: '' };
    const message = agentMessage([textPart('Task canceled by the client.')], ids);
    bus.publish(
      AgentEvent.statusUpdate({
        ...ids,
        status: { state: TaskState.TASK_STATE_CANCELED, message, timestamp: now() },
        metadata: undefined,
      }),
    );
  };

  /** Aborts every running tool call (gateway shutdown). */
  abortAll(): void {
    for (const entry of this.running.values()) {
      entry.controller.abort(new GatewayError('cancelled', 'The gateway is shutting down'));
    }
  }

  /** Runs the request; resolves to the artifact to publish. */
  private async perform(
    request: Exclude<AgentRequest, { kind: 'unusable' }>,
    { caller, scope }: TaskAccess,
    ids: TaskIds,
    bus: ExecutionEventBus,
    signal: AbortSignal,
  ) {
    if (request.kind === 'search') {
      const page = await scope.search({
        query: request.query,
        limit: SEARCH_LIMIT,
        session: sessionOf(caller),
      });
      const lines = page.tools.map((tool) => `- ${tool.id}: ${firstSentence(tool.description)}`);
      const text =
        lines.length === 0
          ? `No tool matches "${request.query}".`
          : `Tools matching "${request.query}" (run one with a data part {"tool_id", "args"}):\n${lines.join('\n')}`;
      return artifact('tools', `Tools matching the request`, [
        textPart(text),
        dataPart({ tools: page.tools }),
      ]);
    }
    // A tool may report progress late; nothing may follow the task's terminal event.
    let settled = false;
    const result = await scope
      .run(request.toolId, request.args, {
        caller,
        signal,
        // Progress becomes working-state status messages, which streaming clients see live.
        progress: (update) => {
          if (settled || signal.aborted) return;
          const total = update.total === undefined ? '' : `/${update.total}`;
          const text = `${update.progress}${total}${update.message ? ` ${update.message}` : ''}`;
          this.status(bus, ids, TaskState.TASK_STATE_WORKING, [
            textPart(text),
            dataPart({ progress: update }),
          ]);
        },
      })
      .finally(() => {
        settled = true;
      });
    return artifact('result', `Result of ${request.toolId}`, resultParts(result), {
      tool_id: request.toolId,
    });
  }

  private fail(bus: ExecutionEventBus, ids: TaskIds, raw: GatewayError): void {
    const error = errorForSurface(raw, 'a2a');
    const state = TASK_STATE_OF[ERROR_CODE_TABLE[error.code].a2aState];
    this.status(bus, ids, state, [textPart(error.message), dataPart({ error: error.toJSON() })]);
  }

  private status(bus: ExecutionEventBus, ids: TaskIds, state: TaskState, parts?: Part[]): void {
    bus.publish(
      AgentEvent.statusUpdate({
        ...ids,
        status: { state, message: parts ? agentMessage(parts, ids) : undefined, timestamp: now() },
        metadata: undefined,
      }),
    );
  }
}

function now(): string {
  return new Date().toISOString();
}

function firstSentence(text: string): string {
  const line = text.split('\n')[0] ?? '';
  // A period followed by a capital (or the end) ends a sentence; "e.g. foo" does not.
  const end = line.search(/[.!?](?=\s+[A-Z]|$)/);
  const sentence = end === -1 ? line : line.slice(0, end + 1);
  return sentence.length > 200 ? `${sentence.slice(0, 199)}…` : sentence;
}
