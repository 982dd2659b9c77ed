import type { Client } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { toGatewayError } from '../../../foundation/model/gateway-error.js';
import type { ClientChannel } from '../../../foundation/ports/client-channel.js';
import type { Logger } from '../../../foundation/ports/logger.js';
import type { InputRounds } from '../input-rounds.js';
import { protocolError } from '../protocol-error.js';
import type { ResourceNaming } from '../resource-naming.js';
import type { SessionChannel } from '../session-channel.js';
import type { PassthroughRelay, PassthroughServer } from './passthrough-relay.js';

/** A capability a downstream server may offer, as its `capabilities()` names it. */
export type Capability = 'resources' | 'prompts' | 'completions' | 'logging';

/** What every capability of one flat session's passthrough works with. */
export interface PassthroughContext {
  /** The session's own MCP server (the client's side). */
  server: Server;
  servers: readonly PassthroughServer[];
  session: SessionChannel;
  log: Logger;
  /** Masks configured secrets in text that reaches the client (downstream messages). */
  mask: (text: string) => string;
  /** A 2026-07-28 client answers a 2026-07-28 server's rounds of input itself, through these. */
  rounds?: { rounds: InputRounds; owner: string } | undefined;
  /** How resource URIs and names are shown to the client (namespaced with several servers). */
  naming: ResourceNaming;
}

const PAGE_LIMIT = 1000;

/** The servers offering `capability` now. */
export function offering(context: PassthroughContext, capability: Capability): PassthroughRelay[] {
  return context.servers
    .filter((s) => s.server.capabilities()?.[capability] !== undefined)
    .map((s) => s.server);
}

/** Runs `use` on every server offering `capability`; a failing server is logged and skipped. */
export async function gather<T>(
  context: PassthroughContext,
  capability: 'resources' | 'prompts' | 'logging',
  use: (client: Client, owner: PassthroughRelay) => Promise<T[]>,
): Promise<T[]> {
  const results = await Promise.all(
    offering(context, capability).map((owner) =>
      owner
        .withClient(context.session.channel, (client) => use(client, owner))
        .catch((error) => {
          context.log.warn(
            { server: owner.name, err: toGatewayError(error).message },
            `${capability} skipped`,
          );
          return [] as T[];
        }),
    ),
  );
  return results.flat();
}

/** Runs a relayed request; gateway failures become JSON-RPC errors the client understands. */
export async function relayRequest<T>(
  owner: PassthroughRelay,
  channel: ClientChannel,
  use: (client: Client) => Promise<T>,
  mask: (text: string) => string,
): Promise<T> {
  try {
    return await owner.withClient(channel, use);
  } catch (error) {
    // A downstream message (or ours, naming the server's URL) may carry a configured credential;
    // a downstream server's own JSON-RPC error goes on without a second prefix.
    if (error instanceof ProtocolError) throw protocolError(error.code, mask(error.message), error.data);
    const failure = toGatewayError(error);
    throw protocolError(ProtocolErrorCode.InternalError, mask(failure.message), { code: failure.code });
  }
}

/** Follows a list method through its pages. */
export async function pages<T>(
  load: (params: { cursor: string } | undefined) => Promise<{ items: T[]; next?: string | undefined }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < PAGE_LIMIT; page++) {
    const result = await load(cursor === undefined ? undefined : { cursor });
    all.push(...result.items);
    cursor = result.next;
    if (!cursor) break;
  }
  return all;
}

/** Sends a notification to the session's client; a closed session just drops it. */
export function notifyClient(
  context: PassthroughContext,
  method: string,
  params?: Record<string, unknown>,
): void {
  context.server.notification({ method, params } as never).catch(() => {});
}
