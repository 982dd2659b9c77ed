import type { ToolScope } from '../composition/tool-scope.js';
import type { ScopeResolver } from '../composition/toolsets/toolset-registry.js';
import type { Logger } from '../foundation/ports/logger.js';

/**
 * What every HTTP surface (MCP, REST, A2A, manifest) shares, built once by the composition root:
 * who may see what, how large a body may be, and who the gateway is. Each surface factory takes
 * this plus the few options only it has, so a rule changed here reaches every surface alike.
 */
export interface SurfaceContext {
  /** The whole catalog: the scope of callers with no identity (auth off). */
  scope: ToolScope;
  /** The scope of a request: its caller's, narrowed to a toolset when the request names one. */
  resolveScope: ScopeResolver;
  /** Largest request body accepted, in bytes (`http.maxBodyBytes`). */
  maxBodyBytes: number;
  /** The gateway's name and version, as documents, cards and `/` show them. */
  info: { name: string; version: string };
  /**
   * The credentials the gateway requires, as the OpenAPI document and the A2A card declare them;
   * absent: every surface is open.
   */
  credentials?: { apiKeys: boolean; jwt: boolean };
  /** The gateway's public origin, e.g. `http://127.0.0.1:8080` (read per request: known once listening). */
  baseUrl: () => string;
  log: Logger;
}
