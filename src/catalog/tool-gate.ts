import type { CatalogEntry } from './catalog-entry.js';

/** Why a tool is held back: a change since it was trusted, or poisoning found on arrival. */
export interface Withheld {
  reason: 'changed' | 'flagged';
  /** One sentence for the caller: what changed or what was found, and how to let it back. */
  message: string;
  /** Machine-readable specifics (changed fields, findings, fingerprints), for `details`. */
  details: Record<string, unknown>;
}

/**
 * The port the catalog asks about every entry a source publishes (before overrides): undefined
 * lets it in, a `Withheld` keeps it out. Implemented by the trust gate (`trust/trust-gate.ts`).
 */
export interface ToolGate {
  check(sourceEntry: CatalogEntry): Withheld | undefined;
  /**
   * Called after a source's entries were checked (a whole `replaceSource`): what the gate keeps
   * about tools of that source no longer published can go.
   */
  settled?(sourceId: string, checked: readonly CatalogEntry[]): void;
}
