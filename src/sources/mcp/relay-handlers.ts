import type { Client, ClientCapabilities } from '@modelcontextprotocol/client';

/** The server-to-client requests a gateway relays, by the client capability each needs. */
const RELAYED: readonly [
  'sampling' | 'elicitation' | 'roots',
  'sampling/createMessage' | 'elicitation/create' | 'roots/list',
][] = [
  ['sampling', 'sampling/createMessage'],
  ['elicitation', 'elicitation/create'],
  ['roots', 'roots/list'],
];

/**
 * Registers the relayed requests the connection declared as handlers of their own, each passing
 * the request to the client's fallback handler (the relay).
 *
 * A 2026-07-28 server asks by answering a call `input_required`; the SDK client fulfils those
 * rounds only through handlers registered by method (never the fallback), so without these a
 * modern server's asks would not reach the gateway's client, whatever its era.
 */
export function registerRelayHandlers(client: Client, capabilities: ClientCapabilities): void {
  for (const [capability, method] of RELAYED) {
    if (capabilities[capability] === undefined) continue;
    client.setRequestHandler(method, (async (request: { method: string; params?: unknown }, ctx: unknown) => {
      const relay = client.fallbackRequestHandler;
      if (!relay) throw new Error(`no relay for ${method}`);
      return relay(request as never, ctx as never);
    }) as never);
  }
}
