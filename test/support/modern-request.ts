import { mcpPost } from './mcp-post.js';

/** The Tasks extension's id, as a client declares it. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const REVISION = '2026-07-28';

/** A JSON-RPC answer: a result or an error. */
export interface ModernAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export interface ModernRequestOptions {
  /** Declare the Tasks extension on the request. Default yes. */
  declareTasks?: boolean;
  /** The client's name in the envelope. */
  client?: string;
  /** More HTTP headers (an API key). */
  headers?: Record<string, string>;
}

/** The per-request envelope a 2026-07-28 client puts in `params._meta`. */
export function modernEnvelope(options: ModernRequestOptions = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': REVISION,
    'io.modelcontextprotocol/clientInfo': { name: options.client ?? 'aperture-tests', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities':
      options.declareTasks === false ? {} : { extensions: { [TASKS_EXTENSION]: {} } },
  };
}

/** The HTTP headers of a 2026-07-28 request for `method` (`Mcp-Name` from the tool name or task id). */
export function modernHeaders(
  method: string,
  params: Record<string, unknown>,
  extra: Record<string, string> = {},
): Record<string, string> {
  const name = (params.name ?? params.taskId) as string | undefined;
  return {
    'mcp-protocol-version': REVISION,
    'mcp-method': method,
    ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    ...extra,
  };
}

/**
 * One request on the 2026-07-28 wire, sent raw to `${base}/mcp` (the SDK client refuses a task
 * answer, `resultType: "task"`), and its answer, read from JSON or the one event of a stream.
 */
export async function modernRequest(
  base: string,
  method: string,
  params: Record<string, unknown>,
  options: ModernRequestOptions = {},
): Promise<ModernAnswer> {
  const response = await fetch(
    `${base}/mcp`,
    mcpPost(
      { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: modernEnvelope(options) } },
      modernHeaders(method, params, options.headers),
    ),
  );
  const text = await response.text();
  const json = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? text);
  return JSON.parse(json) as ModernAnswer;
}
