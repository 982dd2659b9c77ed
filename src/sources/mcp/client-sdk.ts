/** The MCP client SDK's module: `@modelcontextprotocol/client`. */
export type ClientSdk = typeof import('@modelcontextprotocol/client');

let loaded: ClientSdk | undefined;

/**
 * The MCP client SDK, imported on first use. It is a second copy of the protocol layer beside the
 * server SDK (its own schemas, some 650 KB of JavaScript), and a gateway with no downstream MCP
 * server and no OAuth login never needs it: modules that use it only in what they do (not in what
 * they define) take it from here, so that `serve --stdio` answers its first `tools/list` without it.
 */
export async function clientSdk(): Promise<ClientSdk> {
  loaded ??= await import('@modelcontextprotocol/client');
  return loaded;
}

/**
 * The client SDK if something imported it already (every `Client` instance was made from it), for
 * a hot path that must not wait a turn: `loadedClientSdk() ?? (await clientSdk())`.
 */
export function loadedClientSdk(): ClientSdk | undefined {
  return loaded;
}
