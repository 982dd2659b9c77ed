import type { Message } from '@a2a-js/sdk';
import { isRecord } from '../../foundation/util/is-record.js';
import { dataOf, textsOf } from './a2a-parts.js';

/** What an incoming A2A message asks the gateway to do. */
export type AgentRequest =
  /** Run one tool: a data part `{ "tool_id": "...", "args": {...} }`. */
  | { kind: 'run'; toolId: string; args: unknown }
  /** Find tools: the message's text, used as a search query. */
  | { kind: 'search'; query: string }
  /** Nothing the gateway can act on; `reason` tells the client what to send instead. */
  | { kind: 'unusable'; reason: string };

/** How to call a tool, quoted in error messages and in the agent card. */
export const RUN_HINT = 'a data part {"tool_id": "namespace:name", "args": {...}}';

/**
 * Reads a message. A data part with `tool_id` wins over text (a client may add a human-readable
 * note next to the call); text alone is a request in words. Anything else is unusable.
 */
export function interpretMessage(message: Message): AgentRequest {
  const data = dataOf(message.parts);
  const call = data.find((value) => isRecord(value) && 'tool_id' in value);
  if (isRecord(call)) {
    const toolId = call.tool_id;
    if (typeof toolId !== 'string' || toolId.trim() === '') {
      return { kind: 'unusable', reason: `"tool_id" must be a non-empty string; send ${RUN_HINT}` };
    }
    return { kind: 'run', toolId: toolId.trim(), args: call.args };
  }
  const query = textsOf(message.parts).join('\n').trim();
  if (query !== '') return { kind: 'search', query };
  const why = data.length > 0 ? 'its data part has no "tool_id"' : 'it has no data or text part';
  return {
    kind: 'unusable',
    reason: `The message cannot be handled: ${why}. Send ${RUN_HINT} to run a tool, or a text part describing what you need to find tools.`,
  };
}
