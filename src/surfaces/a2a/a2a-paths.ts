/** Where the agent card is served (A2A discovery). */
export const A2A_CARD_PATH = '/.well-known/agent-card.json';
/** The card's pre-0.3 location, still fetched by older clients. */
export const A2A_LEGACY_CARD_PATH = '/.well-known/agent.json';
/** The A2A endpoint: JSON-RPC at the path itself, HTTP+JSON below it. */
export const A2A_ENDPOINT_PATH = '/a2a';
