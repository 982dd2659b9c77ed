/** A JSON-RPC POST to an MCP endpoint as a client of either era sends it: `fetch(url, mcpPost(…))`. */
export function mcpPost(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  };
}
