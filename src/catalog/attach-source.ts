import type { Logger } from '../foundation/ports/logger.js';
import type { Catalog } from './catalog.js';
import type { Source } from './source.js';

/** Options of `attachSource`. */
export interface AttachOptions {
  /** While this answers true the source's publications reach the catalog; after, they are dropped. */
  live?: () => boolean;
}

/**
 * Starts a source publishing into the catalog under its id. The one place that decides what
 * happens to a tool id another source registered first: the first keeps it, the later definition
 * is ignored and a warning names both the source and the ids. Settles as `source.start` does.
 */
export function attachSource(
  catalog: Catalog,
  source: Source,
  log: Logger,
  options: AttachOptions = {},
): Promise<void> {
  // A refused name is reported once, not on every re-listing of an unchanged server.
  const reportedNames = new Set<string>();
  return source.start((entries) => {
    // A source replaced by a reload may still finish a listing: what it publishes then is dropped,
    // or it would overwrite its successor's tools under the same source id.
    if (options.live && !options.live()) return [];
    const refused = catalog.replaceSource(source.id, entries);
    const unusable = refused.flatMap((id) => catalog.unusableSchema(id) ?? []);
    if (unusable.length > 0) {
      log.warn(
        { source: source.id, refused: unusable },
        'tools refused: a schema pattern needs a backtracking regex engine, or a schema nests too deep; the rest of the source serves',
      );
    }
    const badNames = refused
      .flatMap((id) => catalog.unusableName(id) ?? [])
      .filter((problem) => {
        if (reportedNames.has(problem)) return false;
        reportedNames.add(problem);
        return true;
      });
    if (badNames.length > 0) {
      log.warn(
        { source: source.id, refused: badNames },
        'tools refused: a name holds a control, invisible or bidirectional character; the rest of the source serves',
      );
    }
    const taken = refused.filter(
      (id) => catalog.unusableSchema(id) === undefined && catalog.unusableName(id) === undefined,
    );
    if (taken.length > 0) {
      log.warn(
        { source: source.id, refused: taken },
        'tool ids already registered by another source (or twice by this one); these definitions are ignored',
      );
    }
    return refused;
  });
}
