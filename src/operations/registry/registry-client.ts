import { GatewayError } from '../../foundation/model/gateway-error.js';
import type { StateStore, StateValue } from '../../foundation/ports/state-store.js';
import { isRecord } from '../../foundation/util/is-record.js';
import { parseServerJson, type ServerJson } from './server-json.js';

/** One registry to ask (`registries:` in the config). */
export interface RegistryEndpoint {
  name: string;
  /** Base URL; the API lives under `/v0/…`. */
  url: string;
}

/** The official MCP Registry, asked when the config names none. */
export const OFFICIAL_REGISTRY: RegistryEndpoint = {
  name: 'official',
  url: 'https://registry.modelcontextprotocol.io',
};

/** A server found in a registry, with the registry that published it. */
export interface RegistryHit {
  registry: string;
  server: ServerJson;
}

/** Options of {@link RegistryClient}. */
export interface RegistryClientOptions {
  registries: readonly RegistryEndpoint[];
  /** Where answers are cached (scope `registry`); absent: nothing cached. */
  state?: StateStore;
  /** How long a cached answer is used; default 10 minutes. 0: always ask. */
  cacheTtlMs?: number;
  /** Per request; default 15 s. */
  timeoutMs?: number;
  /** Pages read at most by one search; default 20. */
  maxPages?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

const CACHE_SCOPE = 'registry';

/**
 * A client of the MCP Registry API (`GET /v0/servers?search&limit&cursor&version=latest`,
 * `GET /v0/servers/{name}`, `…/versions`, `…/versions/{version}`) over several registries asked in
 * order. Any server speaking that API works (a private registry, a loopback one in tests).
 * Answers are cached in the state store so that a `search` then an `add` ask once. A registry that
 * answers something else than the API's JSON, or pages in a loop, fails with `backend_unavailable`
 * naming it; a name no registry knows fails with `not_found`.
 */
export class RegistryClient {
  private readonly fetchFn: typeof fetch;
  private readonly now: () => number;

  constructor(private readonly options: RegistryClientOptions) {
    this.fetchFn = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
  }

  /** Servers matching `query` (latest versions), from every registry in order, `limit` at most. */
  async search(query: string, limit = 30): Promise<RegistryHit[]> {
    const hits: RegistryHit[] = [];
    for (const registry of this.options.registries) {
      let cursor: string | undefined;
      const seen = new Set<string>();
      for (let page = 0; hits.length < limit; page++) {
        if (page >= (this.options.maxPages ?? 20)) break;
        const params = new URLSearchParams({ version: 'latest', limit: String(Math.min(100, limit)) });
        if (query !== '') params.set('search', query);
        if (cursor !== undefined) params.set('cursor', cursor);
        const body = await this.get(registry, `/v0/servers?${params}`);
        const servers = isRecord(body) ? body.servers : undefined;
        if (!Array.isArray(servers)) throw garbage(registry, 'no "servers" list in the answer');
        for (const entry of servers) {
          const server = parseServerJson(entry, `registry ${registry.name}`);
          if (hits.length < limit) hits.push({ registry: registry.name, server });
        }
        const next = nextCursor(body);
        if (next === undefined || servers.length === 0) break;
        if (seen.has(next)) throw garbage(registry, `its cursor "${next}" came back again (a paging loop)`);
        seen.add(next);
        cursor = next;
      }
    }
    return hits;
  }

  /**
   * One server by name, `version` or the latest; the first registry that knows it wins. Throws
   * `not_found` when none does.
   */
  async server(name: string, version?: string): Promise<RegistryHit> {
    const encoded = encodeURIComponent(name);
    for (const registry of this.options.registries) {
      const latest = version === undefined || version === 'latest';
      let body = await this.get(
        registry,
        latest ? `/v0/servers/${encoded}` : `/v0/servers/${encoded}/versions/${encodeURIComponent(version)}`,
        true,
      );
      // Registries that serve the latest version only under `/versions/latest`.
      if (body === undefined && latest)
        body = await this.get(registry, `/v0/servers/${encoded}/versions/latest`, true);
      if (body === undefined) continue;
      const server = parseServerJson(body, `registry ${registry.name}`);
      if (server.name !== name) throw garbage(registry, `asked for "${name}", it answered "${server.name}"`);
      return { registry: registry.name, server };
    }
    const where = this.options.registries.map((registry) => registry.name).join(', ');
    throw new GatewayError(
      'not_found',
      `No server "${name}"${version && version !== 'latest' ? ` version ${version}` : ''} in the registries (${where}); \`aperture registry search\` finds names`,
    );
  }

  /** The versions a registry lists for `name`, newest first as the registry orders them. */
  async versions(name: string): Promise<string[]> {
    for (const registry of this.options.registries) {
      const body = await this.get(registry, `/v0/servers/${encodeURIComponent(name)}/versions`, true);
      if (body === undefined) continue;
      const servers = isRecord(body) ? body.servers : undefined;
      if (!Array.isArray(servers)) throw garbage(registry, 'no "servers" list in the answer');
      return servers.map((entry) => parseServerJson(entry, `registry ${registry.name}`).version);
    }
    throw new GatewayError('not_found', `No server "${name}" in the registries`);
  }

  /** GET and parse JSON, cached; `undefined` for a 404 when `missingOk`. */
  private async get(registry: RegistryEndpoint, path: string, missingOk = false): Promise<unknown> {
    const url = `${registry.url.replace(/\/+$/, '')}${path}`;
    const ttl = this.options.cacheTtlMs ?? 600_000;
    const cached = ttl > 0 ? this.options.state?.get(CACHE_SCOPE, url) : undefined;
    if (isRecord(cached) && typeof cached.at === 'number' && this.now() - cached.at < ttl) {
      return cached.missing === true ? undefined : cached.body;
    }
    let response: Response;
    try {
      response = await this.fetchFn(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (error) {
      throw new GatewayError(
        'backend_unavailable',
        `registry ${registry.name} (${registry.url}) did not answer: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (response.status === 404 && missingOk) {
      await response.body?.cancel();
      this.remember(url, { at: this.now(), missing: true });
      return undefined;
    }
    const text = await response.text();
    if (!response.ok) {
      throw new GatewayError(
        'backend_unavailable',
        `registry ${registry.name} answered ${response.status} to GET ${path}: ${text.slice(0, 200)}`,
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw garbage(registry, `GET ${path} is not JSON (${JSON.stringify(text.slice(0, 60))}…)`);
    }
    if (!isRecord(body)) throw garbage(registry, `GET ${path} is not a JSON object`);
    this.remember(url, { at: this.now(), body: body as StateValue });
    return body;
  }

  private remember(url: string, value: StateValue): void {
    try {
      this.options.state?.set(CACHE_SCOPE, url, value);
    } catch {
      // A cache that cannot be written costs a request next time, nothing more.
    }
  }
}

/** `metadata.nextCursor` (2025-09 and later) or `metadata.next_cursor` (2025-07). */
function nextCursor(body: unknown): string | undefined {
  const metadata = isRecord(body) && isRecord(body.metadata) ? body.metadata : undefined;
  const next = metadata?.nextCursor ?? metadata?.next_cursor;
  return typeof next === 'string' && next !== '' ? next : undefined;
}

function garbage(registry: RegistryEndpoint, what: string): GatewayError {
  return new GatewayError(
    'backend_unavailable',
    `registry ${registry.name} (${registry.url}) does not speak the MCP Registry API: ${what}`,
  );
}
