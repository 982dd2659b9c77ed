import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, type AgentCard } from '@a2a-js/sdk';
import {
  type Client,
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from '@a2a-js/sdk/client';
import { GatewayError } from '../../foundation/gateway-error.js';

/** The well-known card location, relative to an agent's base URL. */
const CARD_PATH = '.well-known/agent-card.json';

/** How long fetching the agent card may take, at most (a smaller `timeoutMs` wins). */
const CARD_TIMEOUT_MS = 15_000;

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
 * Throws `backend_unavailable` naming the problem when the agent cannot be reached, or its card
 * is missing, not JSON, or offers no interface this client speaks.
 */
export async function connectAgent(
  name: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  timeoutMs: number,
): Promise<AgentConnection> {
  const cardUrl = cardUrlOf(url);
  const fetchImpl = fetchWithHeaders(headers);
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

/** A fetch that adds the configured headers (authorization, routing…) to every request. */
function fetchWithHeaders(headers: Readonly<Record<string, string>>): typeof fetch {
  const entries = Object.entries(headers);
  if (entries.length === 0) return (input, init) => fetch(input, init);
  return (input, init) => {
    const merged = new Headers(init?.headers);
    for (const [key, value] of entries) merged.set(key, value);
    return fetch(input, { ...init, headers: merged });
  };
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
