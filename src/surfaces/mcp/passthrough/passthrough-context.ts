import type { Client } from '@modelcontextprotocol/client';
import {
  type CacheHint,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toGatewayError } from '../../../foundation/model/gateway-error.js';
import type { ClientChannel } from '../../../foundation/ports/client-channel.js';
import type { Logger } from '../../../foundation/ports/logger.js';
import { type InputRounds, isModernRequest } from '../input-rounds.js';
import { protocolError } from '../protocol-error.js';
import type { ResourceNaming } from '../resource-naming.js';
import type { SessionChannel } from '../session-channel.js';
import { cacheHintOf, type PassthroughAccess } from './passthrough-access.js';
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
  /** Which servers the session sees, how its reads and gets are gated, how merged lists are hinted. */
  access: PassthroughAccess;
}

const PAGE_LIMIT = 1000;

/** The servers offering `capability` now, among those the session sees. */
export function offering(context: PassthroughContext, capability: Capability): PassthroughRelay[] {
  return context.servers
    .filter((s) => s.server.capabilities()?.[capability] !== undefined && sees(context, s.server))
    .map((s) => s.server);
}

/** Whether the session sees `server`'s prompts and resources (`PassthroughAccess.sees`). */
export function sees(context: PassthroughContext, server: PassthroughRelay): boolean {
  return context.access.sees?.(server) ?? true;
}

/** One server's list: its items, and the caching hint its result carried (2026-07-28 servers). */
export interface Listed<T> {
  items: T[];
  hint?: CacheHint | undefined;
}

/** Every server's lists merged: the items, and each source's hint (none: it promised nothing). */
export interface Gathered<T> {
  items: T[];
  hints: (CacheHint | undefined)[];
}

/**
 * Runs `use` on every server offering `capability` that the session sees; a failing server is
 * logged and skipped (its hint: not to be kept, as its list may come back any time).
 */
export async function gather<T>(
  context: PassthroughContext,
  capability: 'resources' | 'prompts' | 'logging',
  use: (client: Client, owner: PassthroughRelay) => Promise<Listed<T>>,
): Promise<Gathered<T>> {
  const results = await Promise.all(
    offering(context, capability).map((owner) =>
      owner
        .withClient(context.session.channel, (client) => use(client, owner))
        .catch((error): Listed<T> => {
          context.log.warn(
            { server: owner.name, err: toGatewayError(error).message },
            `${capability} skipped`,
          );
          return { items: [], hint: { ttlMs: 0 } };
        }),
    ),
  );
  return { items: results.flatMap((r) => r.items), hints: results.map((r) => r.hint) };
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

/** Follows a list method through its pages; the hint is the first page's (`cacheHintOf`). */
export async function pages<T>(
  load: (
    params: { cursor: string } | undefined,
  ) => Promise<{ items: T[]; next?: string | undefined; raw?: unknown }>,
): Promise<Listed<T>> {
  const all: T[] = [];
  let cursor: string | undefined;
  let hint: CacheHint | undefined;
  for (let page = 0; page < PAGE_LIMIT; page++) {
    const result = await load(cursor === undefined ? undefined : { cursor });
    if (page === 0) hint = cacheHintOf(result.raw);
    all.push(...result.items);
    cursor = result.next;
    if (!cursor) break;
  }
  return { items: all, hint };
}

/**
 * The caching fields of a merged list for a 2026-07-28 request (`PassthroughAccess.listHint`
 * over its sources' hints); nothing for a 2025 client, or without hints configured.
 */
export function listHint(
  context: PassthroughContext,
  extra: ServerContext,
  hints: readonly (CacheHint | undefined)[],
): Partial<Required<CacheHint>> {
  const merge = context.access.listHint;
  return merge && isModernRequest(extra) ? merge(hints) : {};
}

/** Sends a notification to the session's client; a closed session just drops it. */
export function notifyClient(
  context: PassthroughContext,
  method: string,
  params?: Record<string, unknown>,
): void {
  context.server.notification({ method, params } as never).catch(() => {});
}
