import type { JSONRPCMessage } from '@modelcontextprotocol/server';

/*
 * A server-to-client request of a shared session carries the asking replica in its id
 * (`<replica>~<id>`), so that the client's answer, wherever it lands, finds the way back.
 */

const TAGGED = /^([\w.-]+)~(\d+)$/;

/**
 * `message` with its request id tagged with `replica`, and a cancellation of such a request naming
 * it so (a copy; other messages as they are).
 */
export function tagRequest(message: JSONRPCMessage, replica: string): JSONRPCMessage {
  const { id, method, params } = message as {
    id?: unknown;
    method?: unknown;
    params?: { requestId?: unknown };
  };
  // The server cancelling one of its requests names it as the client knows it.
  if (method === 'notifications/cancelled' && id === undefined && typeof params?.requestId === 'number')
    return {
      ...message,
      params: { ...params, requestId: `${replica}~${params.requestId}` },
    } as JSONRPCMessage;
  // The SDK numbers its requests; anything else is left alone (and its answer stays local).
  if (typeof method !== 'string' || typeof id !== 'number') return message;
  return { ...message, id: `${replica}~${id}` } as JSONRPCMessage;
}

/** A client's answer split by where it goes: this replica (id restored) or another one. */
export interface RoutedAnswers {
  /** What this replica's transport gets; undefined when nothing is left for it. */
  local: unknown;
  /** Answers to requests other replicas asked, with their ids restored. */
  elsewhere: { replica: string; message: JSONRPCMessage }[];
}

/**
 * Splits a POST body: answers (`result`/`error`, no `method`) to tagged requests go back to the
 * replica that asked, with the id that replica's server gave; everything else stays here. A body
 * with no tagged answer is returned as it is (the common case costs one pass over the messages).
 */
export function routeAnswers(body: unknown, replica: string): RoutedAnswers {
  const messages = Array.isArray(body) ? body : [body];
  if (!messages.some(isTaggedAnswer)) return { local: body, elsewhere: [] };
  const local: unknown[] = [];
  const elsewhere: RoutedAnswers['elsewhere'] = [];
  for (const message of messages) {
    if (!isTaggedAnswer(message)) {
      local.push(message);
      continue;
    }
    const [, asker = '', id = ''] = TAGGED.exec(message.id) ?? [];
    const restored = { ...message, id: Number(id) } as JSONRPCMessage;
    if (asker === replica) local.push(restored);
    else elsewhere.push({ replica: asker, message: restored });
  }
  const rest = Array.isArray(body) ? local : local[0];
  return { local: local.length > 0 ? rest : undefined, elsewhere };
}

function isTaggedAnswer(message: unknown): message is { id: string } {
  if (typeof message !== 'object' || message === null) return false;
  const { id, method } = message as { id?: unknown; method?: unknown };
  return method === undefined && typeof id === 'string' && TAGGED.test(id);
}
