import type { ApertureConfig } from '../config/config-schema.js';
import { loadConfig } from '../config/load-config.js';
import { isGatewayErrorCode } from '../foundation/model/error-codes.js';
import { GatewayError } from '../foundation/model/gateway-error.js';
import type { GlobalOptions } from './cli-context.js';

/** Where a running gateway's management API is, and the credential to use it. */
export interface AdminTarget {
  /** The gateway's base URL (`http://127.0.0.1:8080`). */
  url: string;
  /** An admin API key, when the gateway has auth on. */
  apiKey?: string | undefined;
}

/** The options of a command that talks to a running gateway. */
export interface AdminClientOptions {
  url?: string;
  apiKey?: string;
}

/**
 * The gateway a command talks to: `--url`, else `APERTURE_URL`, else the config's `server.host`
 * and `server.port` (a wildcard bind reached on loopback); the key: `--api-key`, else
 * `APERTURE_API_KEY`.
 */
export async function adminTarget(options: AdminClientOptions & GlobalOptions): Promise<AdminTarget> {
  const apiKey = options.apiKey ?? (process.env.APERTURE_API_KEY || undefined);
  const explicit = options.url ?? (process.env.APERTURE_URL || undefined);
  if (explicit !== undefined) return { url: explicit.replace(/\/+$/, ''), apiKey };
  const { config } = await loadConfig({ file: options.config, cwd: process.cwd(), env: process.env });
  return { url: configuredUrl(config), apiKey };
}

function configuredUrl(config: ApertureConfig): string {
  const { host, port } = config.server;
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/**
 * One request to the management API; the answer's JSON, or the gateway's refusal as the
 * `GatewayError` it answered (`not_found`, `forbidden`…). A gateway that does not answer is
 * `backend_unavailable`, naming the URL.
 */
export async function adminRequest(
  target: AdminTarget,
  method: 'GET' | 'POST',
  path: string,
  json?: unknown,
): Promise<unknown> {
  let response: Response;
  const headers: Record<string, string> = target.apiKey ? { 'x-api-key': target.apiKey } : {};
  if (json !== undefined) headers['content-type'] = 'application/json';
  try {
    response = await fetch(`${target.url}${path}`, {
      method,
      headers,
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new GatewayError(
      'backend_unavailable',
      `No gateway answers at ${target.url} (${(error as Error).message}); start one with \`aperture serve\`, or give --url`,
    );
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok) return body;
  const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = isGatewayErrorCode(error?.code) ? error.code : 'internal';
  throw new GatewayError(
    code,
    typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`,
  );
}
