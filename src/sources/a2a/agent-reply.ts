import { type Artifact, type Message, type Part, type Task, TaskState } from '@a2a-js/sdk';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { ToolResult } from '../../foundation/model/tool.js';
import { isRecord } from '../../foundation/util/is-record.js';

type ContentBlock = ToolResult['content'][number];

/** States after which a task changes no more (or not without input this gateway cannot give). */
const FINAL_STATES: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/** True when the task will not progress on its own: completed, failed, or waiting for input. */
export function isSettled(task: Pick<Task, 'status'>): boolean {
  const state = task.status?.state;
  return state !== undefined && FINAL_STATES.has(state);
}

/** True when a settled task is still open on the agent (waiting for input) and should be canceled. */
export function isInterrupted(task: Pick<Task, 'status'>): boolean {
  const state = task.status?.state;
  return state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED;
}

/**
 * The tool result of an agent's reply. A direct message gives its parts; a completed task its
 * artifacts' parts (or, without artifacts, its final status message). Data parts become the
 * structured result (one part: its object; several: `{ data: [...] }`), text parts text blocks,
 * files resource links or embedded blobs. Any other end of the task is `execution_failed` with
 * the agent's own words.
 */
export function replyToResult(agent: string, reply: Message | Task): ToolResult {
  if (isMessage(reply)) return partsToResult(reply.parts);
  const state = reply.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED;
  if (state === TaskState.TASK_STATE_COMPLETED) {
    const parts = reply.artifacts.flatMap((a) => a.parts);
    return partsToResult(parts.length > 0 ? parts : (reply.status?.message?.parts ?? []));
  }
  const said = reply.status?.message ? textOf(reply.status.message.parts) : '';
  const remoteError = reply.status?.message ? errorDataOf(reply.status.message.parts) : undefined;
  const what = STATE_WORDS[state] ?? `left the task in an unexpected state (${TaskState[state] ?? state})`;
  const remoteMessage = said || (typeof remoteError?.message === 'string' ? remoteError.message : '');
  throw new GatewayError(
    'execution_failed',
    `A2A agent "${agent}" ${what}${remoteMessage ? `: ${remoteMessage}` : ''}`,
    {
      details: {
        agent,
        task_id: reply.id,
        remote_state: TaskState[state] ?? String(state),
        ...(remoteError ? { remote_error: remoteError } : {}),
      },
    },
  );
}

const STATE_WORDS: Partial<Record<TaskState, string>> = {
  [TaskState.TASK_STATE_FAILED]: 'failed the task',
  [TaskState.TASK_STATE_REJECTED]: 'rejected the task',
  [TaskState.TASK_STATE_CANCELED]: 'canceled the task',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'asked for more input, which a tool call cannot give',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'asked for authentication, which a tool call cannot give',
};

/** Merges an artifact update into a task's artifacts, honouring `append` (streamed chunks). */
export function mergeArtifact(artifacts: Artifact[], update: Artifact, append: boolean): void {
  const existing = artifacts.find((a) => a.artifactId === update.artifactId);
  if (!existing) artifacts.push(structuredClone(update));
  else if (append) existing.parts.push(...structuredClone(update.parts));
  else artifacts.splice(artifacts.indexOf(existing), 1, structuredClone(update));
}

function partsToResult(parts: readonly Part[]): ToolResult {
  const data: unknown[] = [];
  const content: ContentBlock[] = [];
  for (const part of parts) {
    const value = part.content;
    if (!value) continue;
    switch (value.$case) {
      case 'text':
        content.push({ type: 'text', text: value.value });
        break;
      case 'data':
        data.push(value.value);
        break;
      case 'url':
        content.push({
          type: 'resource_link',
          uri: value.value,
          name: part.filename || value.value,
          ...(part.mediaType ? { mimeType: part.mediaType } : {}),
        });
        break;
      case 'raw':
        content.push(rawBlock(Buffer.from(value.value).toString('base64'), part));
        break;
    }
  }
  const result: ToolResult = { content };
  if (data.length > 0) {
    const only = data.length === 1 ? data[0] : undefined;
    result.structuredContent = isRecord(only) ? only : { data: data.length === 1 ? only : data };
    // MCP clients that ignore structuredContent still read the data as text.
    if (!content.some((block) => block.type === 'text')) {
      content.unshift({ type: 'text', text: JSON.stringify(result.structuredContent) });
    }
  }
  if (content.length === 0) content.push({ type: 'text', text: '' });
  return result;
}

function rawBlock(base64: string, part: Part): ContentBlock {
  const mimeType = part.mediaType || 'application/octet-stream';
  if (mimeType.startsWith('image/')) return { type: 'image', data: base64, mimeType };
  if (mimeType.startsWith('audio/')) return { type: 'audio', data: base64, mimeType };
  const name = encodeURIComponent(part.filename || 'file');
  return { type: 'resource', resource: { uri: `a2a-file:///${name}`, blob: base64, mimeType } };
}

function textOf(parts: readonly Part[]): string {
  return parts
    .flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []))
    .join('\n')
    .trim();
}

/** The `{ error: {...} }` object an agent (an Aperture gateway, for one) puts in a data part. */
function errorDataOf(parts: readonly Part[]): Record<string, unknown> | undefined {
  for (const part of parts) {
    if (part.content?.$case !== 'data') continue;
    const value: unknown = part.content.value;
    if (isRecord(value) && isRecord(value.error)) return value.error;
  }
  return undefined;
}

function isMessage(reply: Message | Task): reply is Message {
  return 'messageId' in reply;
}
