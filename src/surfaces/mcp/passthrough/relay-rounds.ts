import type { Client } from '@modelcontextprotocol/client';
import {
  type InputRequiredResult,
  isInputRequiredResult,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { isModern, requestWithRounds } from '../../../sources/mcp/modern-requests.js';
import { isModernRequest, relayCapabilities, withDirect } from '../input-rounds.js';
import { type PassthroughContext, relayRequest } from './passthrough-context.js';
import type { PassthroughRelay } from './passthrough-relay.js';

/**
 * Relays a request that may take rounds of input (`prompts/get`, `resources/read`): a 2026-07-28
 * client answers a 2026-07-28 server's rounds itself (`target` binds the state of each round to
 * this request); for a 2025 client the gateway answers them, asking the client.
 */
export async function relayRounds<T>(
  context: PassthroughContext,
  owner: PassthroughRelay,
  extra: ServerContext,
  target: string,
  request: { method: string; params: Record<string, unknown> },
  schema: Parameters<Client['request']>[1],
): Promise<T | InputRequiredResult> {
  const { session, rounds } = context;
  const modern = rounds && isModernRequest(extra) ? rounds : undefined;
  const via = modern
    ? withDirect(
        session.forCall(extra),
        modern.rounds.directRounds(extra, modern.owner, target),
        relayCapabilities(extra),
      )
    : session.forCall(extra);
  const options = { signal: extra.mcpReq.signal };
  const result = await relayRequest(
    owner,
    via,
    (client) =>
      isModern(client)
        ? requestWithRounds<T>(client, request, schema, options, via, owner.logLevel())
        : (client.request(request as never, schema, options) as Promise<T>),
    context.mask,
  );
  if (modern && isInputRequiredResult(result))
    return modern.rounds.passOn(extra, modern.owner, target, result);
  return result;
}
