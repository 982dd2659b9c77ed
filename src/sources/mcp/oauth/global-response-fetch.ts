/**
 * `fetch` whose responses are instances of the *current* global `Response`. The MCP SDK tells an
 * OAuth error response apart with `instanceof Response`; in the gateway process the HTTP server
 * library installs its own global `Response` class, so the SDK would misread every token error
 * (a refused refresh token would look like a server fault instead of `invalid_grant`).
 */
export async function globalResponseFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  // Typed as the interface only: at run time it may not be an instance of the global class.
  const response: Pick<Response, 'status' | 'statusText' | 'headers' | 'arrayBuffer'> = await fetch(
    url,
    init,
  );
  if (response instanceof Response) return response;
  const empty = response.status === 204 || response.status === 304;
  return new Response(empty ? null : await response.arrayBuffer(), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
