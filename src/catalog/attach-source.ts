import type { Logger } from '../foundation/logger.js';
import type { Catalog } from './catalog.js';
import type { Source } from './source.js';

/**
 * Starts a source publishing into the catalog under its id. The one place that decides what
 * happens to a tool id another source registered first: the first keeps it, the later definition
 * is ignored and a warning names both the source and the ids. Settles as `source.start` does.
 */
export function attachSource(catalog: Catalog, source: Source, log: Logger): Promise<void> {
  return source.start((entries) => {
    const refused = catalog.replaceSource(source.id, entries);
    if (refused.length > 0) {
      log.warn(
        { source: source.id, refused },
        'tool ids already registered by another source; these definitions are ignored',
      );
    }
    return refused;
  });
}
