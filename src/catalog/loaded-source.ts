import { toGatewayError } from '../foundation/model/gateway-error.js';
import type { Logger } from '../foundation/ports/logger.js';
import type { CatalogEntry } from './catalog-entry.js';
import type { PublishEntries, Source, SourceKind, SourceState } from './source.js';

/**
 * A source loaded once, in the background (an OpenAPI document, an A2A agent card): loaded, it is
 * `connected` with its tools; a load that fails marks it `failed` with the reason, logged, and the
 * gateway serves the other sources.
 */
export class LoadedSource<K extends SourceKind = SourceKind> implements Source {
  private current: SourceState = { state: 'connecting', tools: 0 };

  constructor(
    readonly id: string,
    readonly kind: K,
    private readonly load: () => Promise<readonly CatalogEntry[]>,
    private readonly log: Logger,
  ) {}

  async start(publish: PublishEntries): Promise<void> {
    try {
      const entries = await this.load();
      const refused = publish(entries);
      this.current = { state: 'connected', tools: entries.length - refused.length };
      this.log.info({ source: this.id, tools: this.current.tools }, 'source loaded');
    } catch (error) {
      const failure = toGatewayError(error);
      this.current = {
        state: 'failed',
        tools: 0,
        lastError: { code: failure.code, message: failure.message },
      };
      this.log.error(
        { source: this.id, code: failure.code, err: failure.message },
        'source failed; serving the others',
      );
    }
  }

  state(): SourceState {
    return { ...this.current };
  }

  async stop(): Promise<void> {}
}
