/**
 * `fetch` whose *error* responses are instances of the current global `Response`. The MCP SDK
 * tells an OAuth error response apart with `instanceof Response`; in the gateway process the HTTP
 * server library installs its own global `Response` class, so the SDK would misread every token
 * error (a refused refresh token would look like a server fault instead of `invalid_grant`).
 * Successful responses pass through untouched: an event stream must not be buffered.
 */
export async function globalResponseFetch(url: string | URL, init?: RequestInit): Promise<Response> {
  // Typed as the interface only: at run time it may not be an instance of the global class.
  const response: Pick<Response, 'ok' | 'status' | 'statusText' | 'headers' | 'arrayBuffer'> = await fetch(
    url,
    init,
  );
  if (response instanceof Response || response.ok) return response as Response;
  return new Response(await response.arrayBuffer(), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
