import { randomUUID } from 'node:crypto';
import { type Message, type Part, Role, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { A2AError } from '@a2a-js/sdk/errors';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { Tool } from '../../foundation/model/tool.js';
import type { Logger } from '../../foundation/ports/logger.js';
import type { ExecutionContext, ToolBackend } from '../../foundation/ports/tool-backend.js';
import { describeFetchError, isConnectionError } from './agent-connection.js';
import { isInterrupted, isSettled, mergeArtifact, replyToResult } from './agent-reply.js';

export interface AgentSkillBackendOptions {
  /** The agent's name (the source's namespace), for messages. */
  agent: string;
  client: Client;
  /** Whether the agent streams (its card says so); otherwise the task is polled. */
  streaming: boolean;
  /** How long one task may take before it is canceled and the call fails with `timeout`. */
  timeoutMs: number;
  log: Logger;
}

/** The first poll comes quickly (most tasks are short), later ones back off to this interval. */
const POLL_FIRST_MS = 50;
const POLL_MAX_MS = 1000;
/** A remote cancel is best effort and must not hold anything up for long. */
const CANCEL_TIMEOUT_MS = 5000;

/**
 * Runs a skill of a remote A2A agent: sends `{ message, data? }` as a text part (plus a data
 * part), follows the task to its end (streaming when the agent streams, polling `getTask`
 * otherwise) and turns the reply into a tool result. On abort or timeout the remote task is
 * canceled. Errors: `timeout`, `cancelled`, `backend_unavailable` (agent unreachable),
 * `execution_failed` (task failed or the agent answered something that is not A2A).
 */
export class AgentSkillBackend implements ToolBackend {
  constructor(private readonly options: AgentSkillBackendOptions) {}

  async execute(tool: Tool, args: Record<string, unknown>, ctx: ExecutionContext): Promise<unknown> {
    const { agent, timeoutMs } = this.options;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([ctx.signal, deadline]);
    const request = messageRequest(args, tool.origin.originalName);
    const tracked: { taskId?: string } = {};
    try {
      const reply = this.options.streaming
        ? await this.stream(request, signal, tracked)
        : await this.poll(await this.options.client.sendMessage(request, { signal }), signal, tracked);
      if (!isMessageReply(reply) && isInterrupted(reply)) this.cancelRemote(reply.id, ctx.log);
      return replyToResult(agent, reply);
    } catch (error) {
      if (signal.aborted) {
        if (tracked.taskId) this.cancelRemote(tracked.taskId, ctx.log);
        if (deadline.aborted && !ctx.signal.aborted) {
          throw new GatewayError('timeout', `A2A agent "${agent}" did not finish within ${timeoutMs} ms`, {
            details: { agent, timeoutMs, task_id: tracked.taskId },
          });
        }
        throw new GatewayError('cancelled', `The call to A2A agent "${agent}" was cancelled`, {
          cause: error,
        });
      }
      throw this.remoteError(error);
    }
  }

  /** Follows the streamed events to a settled task, polling if the stream ends early. */
  private async stream(request: SendMessageRequest, signal: AbortSignal, tracked: { taskId?: string }) {
    let task: Task | undefined;
    for await (const event of this.options.client.sendMessageStream(request, { signal })) {
      const payload = event.payload;
      if (!payload) continue;
      if (payload.$case === 'message') {
        // A reply before any task is the answer; a message inside a task is only a note.
        if (!task) return payload.value;
        continue;
      }
      if (payload.$case === 'task') {
        task = structuredClone(payload.value);
        tracked.taskId = task.id;
      } else if (!task) {
        throw new GatewayError('execution_failed', 'The agent sent a task update before the task itself');
      } else if (payload.$case === 'statusUpdate') {
        task.status = payload.value.status;
      } else if (payload.value.artifact) {
        mergeArtifact(task.artifacts, payload.value.artifact, payload.value.append);
      }
      if (isSettled(task)) return task;
    }
    if (!task) throw new GatewayError('execution_failed', 'The agent closed the stream without answering');
    return this.poll(task, signal, tracked);
  }

  /** Polls `getTask` until the task settles. */
  private async poll(start: Message | Task, signal: AbortSignal, tracked: { taskId?: string }) {
    if (isMessageReply(start)) return start;
    let task = start;
    tracked.taskId = task.id;
    for (let wait = POLL_FIRST_MS; !isSettled(task); wait = Math.min(wait * 2, POLL_MAX_MS)) {
      await sleep(wait, signal);
      task = await this.options.client.getTask({ tenant: '', id: task.id }, { signal });
    }
    return task;
  }

  /** Best-effort cancel of a remote task we no longer wait for; never fails the call. */
  private cancelRemote(taskId: string, log: Logger): void {
    const signal = AbortSignal.timeout(CANCEL_TIMEOUT_MS);
    this.options.client
      .cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal })
      .catch((error: unknown) => log.debug({ err: error, taskId }, 'remote A2A task cancel failed'));
  }

  /** Classifies a transport failure: unreachable, an A2A error answer, or garbage. */
  private remoteError(error: unknown): GatewayError {
    const { agent } = this.options;
    if (error instanceof GatewayError) {
      return error.with({
        message: `A2A agent "${agent}": ${error.message}`,
        details: { agent, ...error.details },
        cause: error,
      });
    }
    if (isConnectionError(error)) {
      return new GatewayError(
        'backend_unavailable',
        `A2A agent "${agent}" is unreachable (${describeFetchError(error)})`,
        {
          details: { agent },
          cause: error,
        },
      );
    }
    if (error instanceof A2AError) {
      return new GatewayError(
        'execution_failed',
        `A2A agent "${agent}" answered with an error: ${error.message}`,
        {
          details: { agent, reason: error.reason },
          cause: error,
        },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    const what =
      error instanceof SyntaxError
        ? 'something that is not JSON'
        : 'something that is not a valid A2A answer';
    return new GatewayError('execution_failed', `A2A agent "${agent}" answered with ${what} (${message})`, {
      details: { agent },
      cause: error,
    });
  }
}

/** The user message for a call: the text, plus the data as a data part when given. */
function messageRequest(args: Record<string, unknown>, skillId: string): SendMessageRequest {
  const parts: Part[] = [
    {
      content: { $case: 'text', value: String(args.message ?? '') },
      metadata: undefined,
      filename: '',
      mediaType: 'text/plain',
    },
  ];
  if (args.data !== undefined) {
    parts.push({
      content: { $case: 'data', value: args.data },
      metadata: undefined,
      filename: '',
      mediaType: 'application/json',
    });
  }
  const message: Message = {
    messageId: randomUUID(),
    contextId: '',
    taskId: '',
    role: Role.ROLE_USER,
    parts,
    // A2A has no skill addressing; the hint lets agents that care route on it.
    metadata: { skill_id: skillId },
    extensions: [],
    referenceTaskIds: [],
  };
  return {
    tenant: '',
    message,
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: true,
    },
    metadata: undefined,
  };
}

function isMessageReply(reply: Message | Task): reply is Message {
  return 'messageId' in reply;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
