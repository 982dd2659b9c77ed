import type { Catalog } from '../catalog/catalog.js';
import type { CatalogEntry } from '../catalog/catalog-entry.js';
import type { ApertureConfig } from '../config/config-schema.js';
import { toGatewayError } from '../foundation/gateway-error.js';
import type { Logger } from '../foundation/logger.js';

/** What `/readyz` and `doctor` report of one source. */
export interface SourceStatus {
  id: string;
  kind: 'openapi' | 'a2a';
  state: 'connecting' | 'connected' | 'failed';
  tools: number;
  lastError?: { code: string; message: string };
}

interface Loader {
  id: string;
  kind: SourceStatus['kind'];
  load: () => Promise<CatalogEntry[]>;
}

/**
 * Loads the sources that live across the network (OpenAPI services, A2A agents) concurrently and
 * in the background: one that fails is marked failed with its reason and the gateway serves the
 * rest. `ready` settles once every source has been tried.
 */
export class RemoteSources {
  private readonly status = new Map<string, SourceStatus>();
  readonly ready: Promise<void>;

  constructor(config: ApertureConfig, catalog: Catalog, context: { baseDir: string; log: Logger }) {
    const loaders = this.loaders(config, context);
    for (const loader of loaders)
      this.status.set(loader.id, { id: loader.id, kind: loader.kind, state: 'connecting', tools: 0 });
    this.ready = Promise.all(loaders.map((loader) => this.run(loader, catalog, context.log))).then(() => {
      catalog.flush();
    });
  }

  /** Every source's state, in config order. */
  statuses(): SourceStatus[] {
    return [...this.status.values()].map((s) => ({ ...s }));
  }

  /** True once every source has been tried (whatever the outcome). */
  get settled(): boolean {
    return [...this.status.values()].every((s) => s.state !== 'connecting');
  }

  private loaders(config: ApertureConfig, context: { baseDir: string; log: Logger }): Loader[] {
    const loaders: Loader[] = [];
    for (const entry of config.openapi) {
      const id = `openapi:${entry.namespace}`;
      loaders.push({
        id,
        kind: 'openapi',
        load: async () => {
          const { loadOpenApiSource } = await import('../sources/openapi/openapi-source.js');
          return loadOpenApiSource(entry, { sourceId: id, baseDir: context.baseDir, log: context.log });
        },
      });
    }
    for (const [name, agent] of Object.entries(config.agents)) {
      loaders.push({
        id: `a2a:${name}`,
        kind: 'a2a',
        load: async () => {
          const { loadA2aAgentSource } = await import('../sources/a2a/a2a-agent-source.js');
          return loadA2aAgentSource(name, agent, { log: context.log });
        },
      });
    }
    return loaders;
  }

  private async run(loader: Loader, catalog: Catalog, log: Logger): Promise<void> {
    const status = this.status.get(loader.id) as SourceStatus;
    try {
      const entries = await loader.load();
      const refused = catalog.replaceSource(loader.id, entries);
      if (refused.length > 0)
        log.warn({ source: loader.id, refused }, 'tool ids already registered by another source');
      status.state = 'connected';
      status.tools = entries.length - refused.length;
      log.info({ source: loader.id, tools: status.tools }, 'source loaded');
    } catch (error) {
      const failure = toGatewayError(error);
      status.state = 'failed';
      status.lastError = { code: failure.code, message: failure.message };
      log.error(
        { source: loader.id, code: failure.code, err: failure.message },
        'source failed; serving the others',
      );
    }
  }
}
