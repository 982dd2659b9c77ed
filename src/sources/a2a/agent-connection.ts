import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GatewayError } from '../../foundation/model/gateway-error.js';
import { guardedFetch, queryNames } from '../net/guarded-fetch.js';
import { NetworkGuard, type ResolveHost } from '../net/network-guard.js';

/** The well-known card location, relative to an agent's base URL. */
const CARD_PATH = '.well-known/agent-card.json';

/** How long fetching the agent card may take, at most (a smaller `timeoutMs` wins). */
const CARD_TIMEOUT_MS = 15_000;

/** How an agent may be reached. */
export interface AgentNetworkOptions {
  /** Allow loopback, private and link-local addresses. */
  allowPrivateNetwork: boolean;
  /** Host resolution for the guard; tests inject one. */
  resolveHost?: ResolveHost;
}

/** A remote agent ready to be called: its card and an SDK client bound to its best interface. */
export interface AgentConnection {
  card: AgentCard;
  client: Client;
  /** Where the card came from (for messages). */
  cardUrl: string;
}

/**
 * Fetches an agent's card and builds a client for it. `url` is the agent's base URL (the card is
 * at `{url}/.well-known/agent-card.json`) or the card's own URL (ending in `.json`). Both v1.0
 * agents and v0.3 agents (through the SDK's compat transports) are served, over JSON-RPC or
 * HTTP+JSON, whichever the card lists first. `headers` go with every request.
 *
 * Every request passes the network guard (SSRF: an agent URL is refused on a non-public address
 * unless `allowPrivateNetwork`), the configured headers go only to the configured origin and never
 * follow a redirect elsewhere, and a card whose interfaces name another origin is refused: the
 * card is the remote's word, the origin is the operator's.
 *
 * Throws `forbidden` when the guard refuses the address or the card points at another origin,
 * `backend_unavailable` naming the problem when the agent cannot be reached, or its card is
 * missing, not JSON, or offers no interface this client speaks.
 */
export async function connectAgent(
  name: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
  network: AgentNetworkOptions = { allowPrivateNetwork: false },
): Promise<AgentConnection> {
  const cardUrl = cardUrlOf(url);
  const origin = new URL(cardUrl).origin;
  const guard = new NetworkGuard(
    network.resolveHost
      ? { allowPrivateNetwork: network.allowPrivateNetwork, resolveHost: network.resolveHost }
      : { allowPrivateNetwork: network.allowPrivateNetwork },
  );
  const fetchImpl = fetchWithHeaders(
    headers,
    origin,
    guardedFetch({ guard, credentialHeaders: Object.keys(headers), credentialQuery: queryNames(url) }),
  );
  const unavailable = (why: string, cause?: unknown) =>
    new GatewayError('backend_unavailable', `A2A agent "${name}" (${cardUrl}): ${why}`, {
      cause,
      details: { agent: name, url: cardUrl },
    });

  let response: Response;
  try {
    response = await fetchImpl(cardUrl, {
      // Announce v1.0 as the SDK's own resolver does: a server that speaks both answers in v1.0.
      headers: { [A2A_VERSION_HEADER]: A2A_PROTOCOL_VERSION, accept: 'application/json' },
      signal: AbortSignal.timeout(Math.min(timeoutMs, CARD_TIMEOUT_MS)),
    });
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw unavailable(`unreachable (${describeFetchError(error)})`, error);
  }
  if (!response.ok) throw unavailable(`the agent card request answered HTTP ${response.status}`);
  let raw: unknown;
  try {
    raw = await response.json();
  } catch (error) {
    throw unavailable('the agent card is not JSON', error);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw unavailable('the agent card is not a JSON object');
  }

  const foreign = interfaceUrls(raw).find((one) => !URL.canParse(one) || new URL(one).origin !== origin);
  if (foreign !== undefined) {
    throw new GatewayError(
      'forbidden',
      `A2A agent "${name}" (${cardUrl}): its card points at ${foreign}, outside the configured origin ${origin}; ` +
        "configure that URL as the agent's url if it is meant to be used",
      { details: { agent: name, url: cardUrl, cardUrl: foreign } },
    );
  }

  const legacyCompat = { enabled: true };
  const factory = new ClientFactory({
    transports: [
      new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
      new RestTransportFactory({ fetchImpl, legacyCompat }),
    ],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    // Non-streaming sends return at once with the task; the backend then polls it, which keeps
    // the task id in hand for cancellation.
    clientConfig: { polling: true },
  });
  let client: Client;
  try {
    client = await factory.createFromAgentCard(raw as AgentCard);
  } catch (error) {
    throw unavailable(
      `the agent card is unusable (${error instanceof Error ? error.message : String(error)})`,
      error,
    );
  }
  // The normalised card (v0.3 cards translated); an agent with an extended card is asked for it.
  const card = await client
    .getAgentCard({ signal: AbortSignal.timeout(Math.min(timeoutMs, CARD_TIMEOUT_MS)) })
    .catch(() => raw as AgentCard);
  if (!Array.isArray(card.skills)) throw unavailable('the agent card has no skills list');
  return { card, client, cardUrl };
}

function cardUrlOf(url: string): string {
  const parsed = new URL(url);
  if (parsed.pathname.endsWith('.json')) return parsed.href;
  if (!parsed.pathname.endsWith('/')) parsed.pathname += '/';
  return new URL(CARD_PATH, parsed).href;
}

/**
 * A fetch that adds the configured headers (authorization, routing…) to every request for the
 * agent's own origin, and to no other: whatever URL the SDK was led to, the credentials stay home.
 */
function fetchWithHeaders(
  headers: Readonly<Record<string, string>>,
  origin: string,
  base: typeof fetch,
): typeof fetch {
  const entries = Object.entries(headers);
  if (entries.length === 0) return base;
  return (input, init) => {
    const target = input instanceof Request ? input.url : input instanceof URL ? input.href : String(input);
    if (!URL.canParse(target) || new URL(target).origin !== origin) return base(input, init);
    const merged = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    for (const [key, value] of entries) merged.set(key, value);
    return base(input, { ...init, headers: merged });
  };
}

/** Every interface URL a card names: v0.3 `url` and `additionalInterfaces`, v1.0 `supportedInterfaces`. */
function interfaceUrls(card: object): string[] {
  const found: string[] = [];
  const record = card as { url?: unknown; additionalInterfaces?: unknown; supportedInterfaces?: unknown };
  if (typeof record.url === 'string') found.push(record.url);
  for (const list of [record.additionalInterfaces, record.supportedInterfaces]) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const url = (item as { url?: unknown } | null)?.url;
      if (typeof url === 'string') found.push(url);
    }
  }
  return found;
}

/** `fetch failed` says little; the cause (ECONNREFUSED, ENOTFOUND, a timeout) says what happened. */
export function describeFetchError(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** True for errors where the request never got an HTTP answer (refused, reset, DNS…). */
export function isConnectionError(error: unknown): boolean {
  return error instanceof TypeError && error.message === 'fetch failed';
}
