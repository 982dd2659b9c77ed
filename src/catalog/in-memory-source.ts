import type { CatalogEntry } from './catalog-entry.js';
import type { PublishEntries, Source, SourceKind, SourceState } from './source.js';

/**
 * A source whose tools are already in memory: the built-in tools and each loaded tool module, and
 * the reference implementation of the `Source` port. `replace` publishes a new set once started.
 */
export class InMemorySource implements Source {
  private publish: PublishEntries | undefined;
  private current: SourceState = { state: 'connecting', tools: 0 };

  constructor(
    readonly id: string,
    readonly kind: SourceKind,
    private entries: readonly CatalogEntry[],
  ) {}

  async start(publish: PublishEntries): Promise<void> {
    this.publish = publish;
    this.publishNow();
  }

  /** Replaces the source's tools (published at once when started, else at `start`). */
  replace(entries: readonly CatalogEntry[]): void {
    this.entries = entries;
    if (this.publish) this.publishNow();
  }

  state(): SourceState {
    return { ...this.current };
  }

  async stop(): Promise<void> {
    this.publish = undefined;
  }

  private publishNow(): void {
    const refused = this.publish?.(this.entries) ?? [];
    this.current = { state: 'connected', tools: this.entries.length - refused.length };
  }
}
