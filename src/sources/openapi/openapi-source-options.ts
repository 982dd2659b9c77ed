/**
 * One entry of the config's `openapi:` list: an HTTP service described by an OpenAPI 3.0 or 3.1
 * document, each of whose operations becomes a tool in `namespace`.
 */
export interface OpenApiSourceOptions {
  /**
   * The OpenAPI document: a file path (relative paths resolve against the config file's folder)
   * or an `http(s)` URL. YAML or JSON.
   */
  spec: string;
  /** Namespace of the generated tools (`namespace:operationId`). */
  namespace: string;
  /**
   * Where requests go. Default: the document's first `servers[].url` (operation- and path-level
   * `servers` win over the document's), resolved against the spec URL and with server variables
   * set to their defaults. Required when the spec is a file whose servers are relative or absent.
   */
  baseUrl?: string | undefined;
  /**
   * Headers sent with every request (typically `Authorization: "Bearer ${secret:…}"`). They win
   * over header parameters of the same name, so an agent cannot replace the operator's credentials.
   * They are not sent when fetching the spec itself.
   */
  headers?: Record<string, string> | undefined;
  /**
   * Only operations matching one of these patterns become tools. A pattern matches an
   * operationId, a generated tool name (`get_pets_petId`) or `METHOD /path` (e.g.
   * `GET /pets/{petId}`, method case-insensitive); `*` matches any run of characters.
   * Default: every operation.
   */
  include?: string[] | undefined;
  /** Operations matching one of these patterns are left out (applied after `include`). Default: none. */
  exclude?: string[] | undefined;
  /** Time limit of one HTTP request (and of fetching the spec), in ms. Default: 30 000. */
  timeoutMs?: number | undefined;
  /**
   * Allow requests to loopback, private, link-local (cloud metadata), CGNAT and other
   * non-public addresses. Default: false — an agent must not be able to reach the gateway's
   * internal network through a spec or server URL.
   */
  allowPrivateNetwork?: boolean | undefined;
  /** Largest response body read, in bytes; a bigger one fails the call. Default: 10 MiB. */
  maxResponseBytes?: number | undefined;
}

/** The defaults of the optional settings above. */
export const OPENAPI_SOURCE_DEFAULTS = Object.freeze({
  timeoutMs: 30_000,
  allowPrivateNetwork: false,
  maxResponseBytes: 10 * 1024 * 1024,
});
