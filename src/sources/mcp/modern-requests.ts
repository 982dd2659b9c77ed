import type { Client, InputRequiredResult, LoggingLevel, RequestOptions } from '@modelcontextprotocol/client';
import type {
  ClientChannel,
  DirectRounds,
  RelayCapabilities,
} from '../../foundation/ports/client-channel.js';
import { type ClientSdk, clientSdk, loadedClientSdk } from './client-sdk.js';

/** The stateless revision: a server that speaks it asks its client through `input_required` answers. */
export const MODERN_REVISION = '2026-07-28';

/** More rounds than this for one request is a server that never finishes. */
const MAX_ROUNDS = 16;

/** The client capability each embedded input request needs. */
const REQUIRED: Record<string, 'sampling' | 'elicitation' | 'roots' | undefined> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/** Whether `client` negotiated the 2026-07-28 revision with its server. */
export function isModern(client: Client): boolean {
  return client.getNegotiatedProtocolVersion() === MODERN_REVISION;
}

type Schema = Parameters<Client['request']>[1];

/** Each result schema widened to admit `input_required`, made once (calls are the hot path). */
const widened = new WeakMap<object, Schema>();
function admittingRounds(schema: Schema, sdk: ClientSdk): Schema {
  let wide = widened.get(schema);
  if (!wide) {
    wide = sdk.withInputRequired(schema) as Schema;
    widened.set(schema, wide);
  }
  return wide;
}

/**
 * One request (`tools/call`, `prompts/get`, `resources/read`) to a 2026-07-28 server on behalf of
 * `channel`'s client, rounds included. The request's envelope declares what that client can answer
 * (not what the gateway's connection declared: a server must not ask a client for what it cannot
 * give) and the log level the sessions asked for (the revision has no `logging/setLevel`).
 *
 * With `channel.direct` (a 2026-07-28 client of its own) an `input_required` answer is handed back
 * as it is, and the client's answers of the previous round go with the request: the server's input
 * keys and request state reach the client untouched. Otherwise the gateway answers each round
 * itself, asking `channel`'s client each embedded request (a 2025 client gets it as the server-to-
 * client request it knows), and retries with the answers and the server's state.
 */
export async function requestWithRounds<T>(
  client: Client,
  request: { method: string; params: Record<string, unknown> },
  schema: Schema,
  options: RequestOptions & { signal?: AbortSignal },
  channel: ClientChannel | undefined,
  logLevel: LoggingLevel | undefined,
  /** Extensions the gateway declares on the client's behalf (it handles them itself). */
  extensions?: Record<string, unknown>,
): Promise<T | InputRequiredResult> {
  // `client` was made from this module, so it is in memory: only the first call waits a turn for it.
  const sdk = loadedClientSdk() ?? (await clientSdk());
  const { ProtocolError, ProtocolErrorCode } = sdk;
  const direct: DirectRounds | undefined = channel?.direct;
  const meta: Record<string, unknown> = {
    ...((request.params._meta as Record<string, unknown> | undefined) ?? {}),
    [sdk.CLIENT_CAPABILITIES_META_KEY]: declaring(channel?.capabilities() ?? {}, extensions),
    ...(logLevel ? { [sdk.LOG_LEVEL_META_KEY]: logLevel } : {}),
  };
  let inputResponses = direct?.inputResponses;
  let requestState = direct?.requestState;
  for (let round = 0; ; round++) {
    const params = {
      ...request.params,
      _meta: meta,
      ...(inputResponses && Object.keys(inputResponses).length > 0 ? { inputResponses } : {}),
      ...(requestState !== undefined ? { requestState } : {}),
    };
    let result: T | InputRequiredResult;
    try {
      result = (await client.request(
        { method: request.method, params } as never,
        admittingRounds(schema, sdk),
        {
          ...options,
          allowInputRequired: true,
        },
      )) as T | InputRequiredResult;
    } catch (error) {
      // The server needs what the client did not declare: the call fails with -32021 for a
      // 2026-07-28 client too (not as a tool error), which the channel is told of.
      if (
        error instanceof ProtocolError &&
        error.code === ProtocolErrorCode.MissingRequiredClientCapability
      ) {
        const required = (error.data as { requiredCapabilities?: Record<string, unknown> } | undefined)
          ?.requiredCapabilities;
        for (const capability of Object.keys(required ?? {})) channel?.refused?.(request.method, capability);
      }
      throw error;
    }
    if (!sdk.isInputRequiredResult(result) || direct) return result;
    if (round >= MAX_ROUNDS)
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `${request.method}: more than ${MAX_ROUNDS} input rounds`,
      );
    inputResponses = await answerRound(result, channel, options.signal, sdk);
    requestState = result.requestState;
  }
}

/** `capabilities` with `extensions` added, if any. */
function declaring(
  capabilities: RelayCapabilities,
  extensions: Record<string, unknown> | undefined,
): RelayCapabilities {
  if (!extensions) return capabilities;
  return { ...capabilities, extensions: { ...capabilities.extensions, ...extensions } };
}

/** Asks `channel`'s client every embedded request of a round; their answers by the server's keys. */
export async function answerRound(
  result: InputRequiredResult,
  channel: ClientChannel | undefined,
  signal: AbortSignal | undefined,
  { ProtocolError, ProtocolErrorCode }: ClientSdk,
): Promise<Record<string, unknown>> {
  const entries = Object.entries(result.inputRequests ?? {}) as [
    string,
    { method: string; params?: unknown },
  ][];
  const answers = await Promise.all(
    entries.map(async ([key, ask]) => {
      const capability = REQUIRED[ask.method];
      if (!channel || !capability || channel.capabilities()[capability] === undefined) {
        if (channel && capability) channel.refused?.(ask.method, capability);
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `${ask.method}: the client of this call cannot answer it (it did not declare the capability)`,
        );
      }
      return [key, await channel.request(ask.method, ask.params as Record<string, unknown>, signal)] as const;
    }),
  );
  return Object.fromEntries(answers);
}
